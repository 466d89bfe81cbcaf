# fig1-001: written by dpadmm_repro; run from this directory with `gnuplot fig1-001.gp`
set terminal png noenhanced size 1400,560 font 'DejaVu Sans,9'
set output 'fig1-001.png'
set datafile separator ','
set key top right font ',8'
set grid
set multiplot layout 1,2 title '001 Fig. 1 on a9a: 2 parties (66 / 57 features), lambda = 1e-4, rho = 1e-5; SGD lr 1, batch 64'
set xlabel 'epoch'
set title '(a) training objective: mean log loss + lambda ||x||^2/2'
set ylabel '(a) training objective: mean log loss + lambda ||x||^2/2'
set yrange [0.316:0.453]
plot 'fig1-001.csv' using 7:(strcol(2) eq 'admm_sharing' ? $9 : NaN) with lines lc rgb '#dd0000' lw 2 title 'ADMM sharing', \
  '' using 7:(strcol(2) eq 'sgd_lr1' ? $9 : NaN) with lines lc rgb '#0000dd' lw 2 title 'SGD lr 1', \
  0.3363503266 with lines lc rgb '#000000' dt 2 title 'centralized optimum (all features)'
set title '(b) test log loss'
set ylabel '(b) test log loss'
set yrange [0.305:0.453]
plot 'fig1-001.csv' using 7:(strcol(2) eq 'admm_sharing' ? $11 : NaN) with lines lc rgb '#dd0000' lw 2 title 'ADMM sharing', \
  '' using 7:(strcol(2) eq 'sgd_lr1' ? $11 : NaN) with lines lc rgb '#0000dd' lw 2 title 'SGD lr 1', \
  0.3249250282 with lines lc rgb '#000000' dt 2 title 'centralized optimum (all features)', \
  0.3525619912 with lines lc rgb '#00aa00' dt 3 title 'party 1 features only'
unset multiplot
