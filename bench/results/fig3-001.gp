# fig3-001: written by dpadmm_repro; run from this directory with `gnuplot fig3-001.gp`
set terminal png noenhanced size 1500,600 font 'DejaVu Sans,9'
set output 'fig3-001.png'
set datafile separator ','
set key top right font ',8'
set grid
set multiplot layout 1,2 title '001 Fig. 1(b) / 3(a) on a9a: DP ADMM sharing under noise levels; 2 parties 66/57'
set title 'test log loss per epoch (run 0)'
set xlabel 'epoch'
set ylabel 'test log loss'
set logscale y
set yrange [*:*]
plot 'fig3-001.csv' using 7:(strcol(2) eq 'noise_free' ? $11 : NaN) with lines lc rgb '#000000' lw 2 title 'noise-free', \
  '' using 7:(strcol(2) eq 'dp_sigma0.3' && $4 == 0 ? $11 : NaN) with lines lc rgb '#00aa00' lw 2 title 'eq. (16), sigma = 0.3', \
  '' using 7:(strcol(2) eq 'dp_sigma1' && $4 == 0 ? $11 : NaN) with lines lc rgb '#0000dd' lw 2 title 'eq. (16), sigma = 1', \
  '' using 7:(strcol(2) eq 'dp_sigma3' && $4 == 0 ? $11 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'eq. (16), sigma = 3', \
  '' using 7:(strcol(2) eq 'dp_sigma10' && $4 == 0 ? $11 : NaN) with lines lc rgb '#ff8800' lw 2 title 'eq. (16), sigma = 10', \
  '' using 7:(strcol(2) eq 'dp_sigma30' && $4 == 0 ? $11 : NaN) with lines lc rgb '#dd0000' lw 2 title 'eq. (16), sigma = 30', \
  '' using 7:(strcol(2) eq 'dp_eps1_theorem3' && $4 == 0 ? $11 : NaN) with lines lc rgb '#888888' lw 2 title 'eq. (16), Theorem 3 sigma for eps = 1', \
  '' using 7:(strcol(2) eq 'gauss_eps1_b1' && $4 == 0 ? $11 : NaN) with lines lc rgb '#00aaaa' lw 2 dt 2 title 'default mechanism, eps = 1, b1 = 1', \
  '' using 7:(strcol(2) eq 'gauss_eps1_b100' && $4 == 0 ? $11 : NaN) with lines lc rgb '#884400' lw 2 dt 2 title 'default mechanism, eps = 1, b1 = 100', \
  '' using 7:(strcol(2) eq 'gauss_eps10_b1' && $4 == 0 ? $11 : NaN) with lines lc rgb '#8888ff' lw 2 dt 2 title 'default mechanism, eps = 10, b1 = 1', \
  '' using 7:(strcol(2) eq 'gauss_eps10_b100' && $4 == 0 ? $11 : NaN) with lines lc rgb '#444444' lw 2 dt 2 title 'default mechanism, eps = 10, b1 = 100', \
  '' using 7:(strcol(2) eq 'gauss_eps100_b1' && $4 == 0 ? $11 : NaN) with lines lc rgb '#00aa00' lw 2 dt 2 title 'default mechanism, eps = 100, b1 = 1', \
  '' using 7:(strcol(2) eq 'gauss_eps100_b100' && $4 == 0 ? $11 : NaN) with lines lc rgb '#0000dd' lw 2 dt 2 title 'default mechanism, eps = 100, b1 = 100', \
  0.3249250282 with lines lc rgb '#000000' dt 2 title 'centralized, all features', \
  0.3525619912 with lines lc rgb '#00aa00' dt 3 title 'party 1 features only'
set title 'final test log loss (mean, bars min..max) against the noise setting'
set xlabel 'setting (see the table)'
set xtics rotate by 30 right font ',7'
set xrange [-0.5:12.5]
plot 'fig3-001_final.csv' using 2:3:4:5:xticlabels(1) with yerrorbars lc rgb '#dd0000' pt 7 title 'ADMM sharing', \
  0.3249250282 with lines lc rgb '#000000' dt 2 title 'centralized, all features', \
  0.3525619912 with lines lc rgb '#00aa00' dt 3 title 'party 1 features only'
unset multiplot
