# fig2-001: written by dpadmm_repro; run from this directory with `gnuplot fig2-001.gp`
set terminal png noenhanced size 1400,560 font 'DejaVu Sans,9'
set output 'fig2-001.png'
set datafile separator ','
set key top right font ',8'
set grid
set multiplot layout 1,2 title '001 Fig. 2 on generated gisette-like data: 6,000 / 1,000 rows, 5,000 sparse features, 3 parties (2,000 / 2,000 / 1,000), lambda = 1e-5, rho = 2e-4; SGD batch 64'
set xlabel 'epoch'
set title '(a) training objective: mean log loss + lambda ||x||^2/2'
set ylabel '(a) training objective: mean log loss + lambda ||x||^2/2'
set yrange [0.273:0.734]
plot 'fig2-001.csv' using 7:(strcol(2) eq 'admm_sharing' ? $9 : NaN) with lines lc rgb '#dd0000' lw 2 title 'ADMM sharing', \
  '' using 7:(strcol(2) eq 'sgd_lr4' ? $9 : NaN) with lines lc rgb '#0000dd' lw 2 title 'SGD lr 4', \
  '' using 7:(strcol(2) eq 'sgd_lr64' ? $9 : NaN) with lines lc rgb '#00aadd' lw 2 title 'SGD lr 64', \
  0.2932829459 with lines lc rgb '#000000' dt 2 title 'centralized optimum (all features)'
set title '(b) test log loss'
set ylabel '(b) test log loss'
set yrange [0.449:0.734]
plot 'fig2-001.csv' using 7:(strcol(2) eq 'admm_sharing' ? $11 : NaN) with lines lc rgb '#dd0000' lw 2 title 'ADMM sharing', \
  '' using 7:(strcol(2) eq 'sgd_lr4' ? $11 : NaN) with lines lc rgb '#0000dd' lw 2 title 'SGD lr 4', \
  '' using 7:(strcol(2) eq 'sgd_lr64' ? $11 : NaN) with lines lc rgb '#00aadd' lw 2 title 'SGD lr 64', \
  0.4691544267 with lines lc rgb '#000000' dt 2 title 'centralized optimum (all features)', \
  0.6340517444 with lines lc rgb '#00aa00' dt 3 title 'party 1 features only'
unset multiplot
