# fig1-003: written by dpadmm_repro; run from this directory with `gnuplot fig1-003.gp`
set terminal png noenhanced size 1800,1000 font 'DejaVu Sans,9'
set output 'fig1-003.png'
set datafile separator ','
set key top right font ',8'
set grid
set multiplot layout 2,3 title '003 Fig. 1 on Adult (non-private): rho = 0.22, C = 1750; N = 5 (7 edges, with circles) and N = 20 (30 edges)'
set xlabel 'iteration t'
set title '(a) R-ADMM, eta = 0.5, N = 5 with circles / N = 20 plain'
unset logscale y
set yrange [0.33:0.45]
set ylabel 'L(t) (average training loss)'
plot 'fig1-003_summary.csv' using 5:(strcol(1) eq 'admm_eta0.5/N5_even/a0' ? $7 : NaN) with linespoints lc rgb '#00aa00' pt 6 pi 8 ps 0.8 lw 2 title 'ADMM eta=0.5, N5_even', \
  'fig1-003_summary.csv' using 5:(strcol(1) eq 'radmm_g0/N5_even/a0' ? $7 : NaN) with linespoints lc rgb '#dd0000' pt 6 pi 8 ps 0.8 lw 2 title 'R-ADMM gamma=0, N5_even', \
  'fig1-003_summary.csv' using 5:(strcol(1) eq 'radmm_g0.5/N5_even/a0' ? $7 : NaN) with linespoints lc rgb '#0000dd' pt 6 pi 8 ps 0.8 lw 2 title 'R-ADMM gamma=0.5, N5_even', \
  'fig1-003_summary.csv' using 5:(strcol(1) eq 'radmm_g2/N5_even/a0' ? $7 : NaN) with linespoints lc rgb '#cc00cc' pt 6 pi 8 ps 0.8 lw 2 title 'R-ADMM gamma=2, N5_even', \
  'fig1-003_summary.csv' using 5:(strcol(1) eq 'admm_eta0.5/N20_even/a0' ? $7 : NaN) with lines lc rgb '#00aa00' lw 2 title 'ADMM eta=0.5, N20_even', \
  'fig1-003_summary.csv' using 5:(strcol(1) eq 'radmm_g0/N20_even/a0' ? $7 : NaN) with lines lc rgb '#dd0000' lw 2 title 'R-ADMM gamma=0, N20_even', \
  'fig1-003_summary.csv' using 5:(strcol(1) eq 'radmm_g0.5/N20_even/a0' ? $7 : NaN) with lines lc rgb '#0000dd' lw 2 title 'R-ADMM gamma=0.5, N20_even', \
  'fig1-003_summary.csv' using 5:(strcol(1) eq 'radmm_g2/N20_even/a0' ? $7 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'R-ADMM gamma=2, N20_even'
set title '(b) MR-ADMM, eta_i(2k-1) = eta_i q1(i)^k, N = 5'
unset logscale y
set yrange [0.33:0.45]
set ylabel 'L(t) (average training loss)'
plot 'fig1-003_summary.csv' using 5:(strcol(1) eq 'radmm_eta1/N5_even/a0' ? $7 : NaN) with lines lc rgb '#000000' lw 3 title 'R-ADMM eta=1', \
  'fig1-003_summary.csv' using 5:(strcol(1) eq 'mradmm_b1/N5_even/a0' ? $7 : NaN) with lines lc rgb '#dd0000' lw 2 title 'MR-ADMM node q1 = 1+1q2', \
  'fig1-003_summary.csv' using 5:(strcol(1) eq 'mradmm_b2/N5_even/a0' ? $7 : NaN) with lines lc rgb '#ff8800' lw 2 title 'MR-ADMM node q1 = 1+2q2', \
  'fig1-003_summary.csv' using 5:(strcol(1) eq 'mradmm_b3/N5_even/a0' ? $7 : NaN) with lines lc rgb '#00aa00' lw 2 title 'MR-ADMM node q1 = 1+3q2', \
  'fig1-003_summary.csv' using 5:(strcol(1) eq 'mradmm_b4/N5_even/a0' ? $7 : NaN) with lines lc rgb '#0000dd' lw 2 title 'MR-ADMM node q1 = 1+4q2', \
  'fig1-003_summary.csv' using 5:(strcol(1) eq 'mradmm_b5/N5_even/a0' ? $7 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'MR-ADMM node q1 = 1+5q2'
set title '(c) MR-ADMM, eta_i(2k-1) = q1^k, N = 5'
unset logscale y
set yrange [0.33:0.45]
set ylabel 'L(t) (average training loss)'
plot 'fig1-003_summary.csv' using 5:(strcol(1) eq 'radmm_eta1/N5_even/a0' ? $7 : NaN) with lines lc rgb '#000000' lw 3 title 'R-ADMM eta=1', \
  'fig1-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.01/N5_even/a0' ? $7 : NaN) with lines lc rgb '#dd0000' lw 2 title 'MR-ADMM eta=1.01^k', \
  'fig1-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.02/N5_even/a0' ? $7 : NaN) with lines lc rgb '#ff8800' lw 2 title 'MR-ADMM eta=1.02^k', \
  'fig1-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.03/N5_even/a0' ? $7 : NaN) with lines lc rgb '#00aa00' lw 2 title 'MR-ADMM eta=1.03^k', \
  'fig1-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.04/N5_even/a0' ? $7 : NaN) with lines lc rgb '#0000dd' lw 2 title 'MR-ADMM eta=1.04^k', \
  'fig1-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.05/N5_even/a0' ? $7 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'MR-ADMM eta=1.05^k'
set title '(a) R-ADMM, eta = 0.5, N = 5 with circles / N = 20 plain'
set logscale y
set yrange [*:*]
set ylabel 'max_i ||f_i(t) - f*|| / ||f*||'
plot 'fig1-003_summary.csv' using 5:(strcol(1) eq 'admm_eta0.5/N5_even/a0' ? $16 : NaN) with linespoints lc rgb '#00aa00' pt 6 pi 8 ps 0.8 lw 2 title 'ADMM eta=0.5, N5_even', \
  'fig1-003_summary.csv' using 5:(strcol(1) eq 'radmm_g0/N5_even/a0' ? $16 : NaN) with linespoints lc rgb '#dd0000' pt 6 pi 8 ps 0.8 lw 2 title 'R-ADMM gamma=0, N5_even', \
  'fig1-003_summary.csv' using 5:(strcol(1) eq 'radmm_g0.5/N5_even/a0' ? $16 : NaN) with linespoints lc rgb '#0000dd' pt 6 pi 8 ps 0.8 lw 2 title 'R-ADMM gamma=0.5, N5_even', \
  'fig1-003_summary.csv' using 5:(strcol(1) eq 'radmm_g2/N5_even/a0' ? $16 : NaN) with linespoints lc rgb '#cc00cc' pt 6 pi 8 ps 0.8 lw 2 title 'R-ADMM gamma=2, N5_even', \
  'fig1-003_summary.csv' using 5:(strcol(1) eq 'admm_eta0.5/N20_even/a0' ? $16 : NaN) with lines lc rgb '#00aa00' lw 2 title 'ADMM eta=0.5, N20_even', \
  'fig1-003_summary.csv' using 5:(strcol(1) eq 'radmm_g0/N20_even/a0' ? $16 : NaN) with lines lc rgb '#dd0000' lw 2 title 'R-ADMM gamma=0, N20_even', \
  'fig1-003_summary.csv' using 5:(strcol(1) eq 'radmm_g0.5/N20_even/a0' ? $16 : NaN) with lines lc rgb '#0000dd' lw 2 title 'R-ADMM gamma=0.5, N20_even', \
  'fig1-003_summary.csv' using 5:(strcol(1) eq 'radmm_g2/N20_even/a0' ? $16 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'R-ADMM gamma=2, N20_even'
set title '(b) MR-ADMM, eta_i(2k-1) = eta_i q1(i)^k, N = 5'
set logscale y
set yrange [*:*]
set ylabel 'max_i ||f_i(t) - f*|| / ||f*||'
plot 'fig1-003_summary.csv' using 5:(strcol(1) eq 'radmm_eta1/N5_even/a0' ? $16 : NaN) with lines lc rgb '#000000' lw 3 title 'R-ADMM eta=1', \
  'fig1-003_summary.csv' using 5:(strcol(1) eq 'mradmm_b1/N5_even/a0' ? $16 : NaN) with lines lc rgb '#dd0000' lw 2 title 'MR-ADMM node q1 = 1+1q2', \
  'fig1-003_summary.csv' using 5:(strcol(1) eq 'mradmm_b2/N5_even/a0' ? $16 : NaN) with lines lc rgb '#ff8800' lw 2 title 'MR-ADMM node q1 = 1+2q2', \
  'fig1-003_summary.csv' using 5:(strcol(1) eq 'mradmm_b3/N5_even/a0' ? $16 : NaN) with lines lc rgb '#00aa00' lw 2 title 'MR-ADMM node q1 = 1+3q2', \
  'fig1-003_summary.csv' using 5:(strcol(1) eq 'mradmm_b4/N5_even/a0' ? $16 : NaN) with lines lc rgb '#0000dd' lw 2 title 'MR-ADMM node q1 = 1+4q2', \
  'fig1-003_summary.csv' using 5:(strcol(1) eq 'mradmm_b5/N5_even/a0' ? $16 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'MR-ADMM node q1 = 1+5q2'
set title '(c) MR-ADMM, eta_i(2k-1) = q1^k, N = 5'
set logscale y
set yrange [*:*]
set ylabel 'max_i ||f_i(t) - f*|| / ||f*||'
plot 'fig1-003_summary.csv' using 5:(strcol(1) eq 'radmm_eta1/N5_even/a0' ? $16 : NaN) with lines lc rgb '#000000' lw 3 title 'R-ADMM eta=1', \
  'fig1-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.01/N5_even/a0' ? $16 : NaN) with lines lc rgb '#dd0000' lw 2 title 'MR-ADMM eta=1.01^k', \
  'fig1-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.02/N5_even/a0' ? $16 : NaN) with lines lc rgb '#ff8800' lw 2 title 'MR-ADMM eta=1.02^k', \
  'fig1-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.03/N5_even/a0' ? $16 : NaN) with lines lc rgb '#00aa00' lw 2 title 'MR-ADMM eta=1.03^k', \
  'fig1-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.04/N5_even/a0' ? $16 : NaN) with lines lc rgb '#0000dd' lw 2 title 'MR-ADMM eta=1.04^k', \
  'fig1-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.05/N5_even/a0' ? $16 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'MR-ADMM eta=1.05^k'
unset multiplot
