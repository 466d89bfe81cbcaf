# fig3-001: written by dpadmm_repro; run from this directory with `gnuplot fig3-001.gp`
set terminal png noenhanced size 900,600 font 'DejaVu Sans,9'
set output 'fig3-001.png'
set datafile separator ','
set key top right font ',8'
set grid
set title '001 Fig. 3 on a9a: DP ADMM sharing, test log loss under noise levels sigma (run 0 of 3); 2 parties 66/57'
set xlabel 'epoch'
set ylabel 'test log loss'
set logscale y
set yrange [0.3:*]
plot 'fig3-001.csv' using 7:(strcol(2) eq 'noise_free' ? $11 : NaN) with lines lc rgb '#000000' lw 2 title 'noise-free', \
  '' using 7:(strcol(2) eq 'dp_sigma0.3' && $4 == 0 ? $11 : NaN) with lines lc rgb '#00aa00' lw 2 title 'sigma = 0.3', \
  '' using 7:(strcol(2) eq 'dp_sigma1' && $4 == 0 ? $11 : NaN) with lines lc rgb '#0000dd' lw 2 title 'sigma = 1', \
  '' using 7:(strcol(2) eq 'dp_sigma3' && $4 == 0 ? $11 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'sigma = 3', \
  '' using 7:(strcol(2) eq 'dp_sigma10' && $4 == 0 ? $11 : NaN) with lines lc rgb '#ff8800' lw 2 title 'sigma = 10', \
  '' using 7:(strcol(2) eq 'dp_sigma30' && $4 == 0 ? $11 : NaN) with lines lc rgb '#dd0000' lw 2 title 'sigma = 30', \
  '' using 7:(strcol(2) eq 'dp_eps1_theorem3' && $4 == 0 ? $11 : NaN) with lines lc rgb '#888888' lw 2 title 'Theorem 3 sigma, eps = 1', \
  0.3249250282 with lines lc rgb '#000000' dt 2 title 'centralized, all features', \
  0.3525619912 with lines lc rgb '#00aa00' dt 3 title 'party 1 features only'
