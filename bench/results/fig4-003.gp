# fig4-003: written by dpadmm_repro; run from this directory with `gnuplot fig4-003.gp`
set terminal png noenhanced size 1300,1400 font 'DejaVu Sans,9'
set output 'fig4-003.png'
set datafile separator ','
set key top right font ',8'
set grid
set multiplot layout 3,2 title '003 Fig. 4 on Adult: private MR-ADMM, eta_i(2k-1) = q1^k, gamma = 0.5, N = 5, rho = 0.22, C = 1750; mean of 10 runs, bars = min..max every 10 rounds'
set logscale y
set yrange [0.33:2]
set ytics (0.35, 0.4, 0.5, 0.7, 1, 1.5, 2)
set xlabel 'iteration t'
set ylabel 'L(t) (average training loss)'
set title 'alpha = 2'
plot 'fig4-003_summary.csv' using 5:(strcol(1) eq 'admm/N5_even/a0' ? $7 : NaN) with lines lc rgb '#00aa00' lw 2 title 'ADMM non-private (eta=1)', \
  'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1/N5_even/a2' ? $7 : NaN) with lines lc rgb '#000000' lw 2 title 'R-ADMM (q1=1)', '' using 5:(strcol(1) eq 'mradmm_q1/N5_even/a2' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#000000' pt 0 notitle, \
  'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.01/N5_even/a2' ? $7 : NaN) with lines lc rgb '#dd0000' lw 2 title 'MR-ADMM q1=1.01', '' using 5:(strcol(1) eq 'mradmm_q1.01/N5_even/a2' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#dd0000' pt 0 notitle, \
  'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.02/N5_even/a2' ? $7 : NaN) with lines lc rgb '#ff8800' lw 2 title 'MR-ADMM q1=1.02', '' using 5:(strcol(1) eq 'mradmm_q1.02/N5_even/a2' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#ff8800' pt 0 notitle, \
  'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.03/N5_even/a2' ? $7 : NaN) with lines lc rgb '#00aaaa' lw 2 title 'MR-ADMM q1=1.03', '' using 5:(strcol(1) eq 'mradmm_q1.03/N5_even/a2' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#00aaaa' pt 0 notitle, \
  'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.04/N5_even/a2' ? $7 : NaN) with lines lc rgb '#0000dd' lw 2 title 'MR-ADMM q1=1.04', '' using 5:(strcol(1) eq 'mradmm_q1.04/N5_even/a2' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#0000dd' pt 0 notitle, \
  'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.05/N5_even/a2' ? $7 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'MR-ADMM q1=1.05', '' using 5:(strcol(1) eq 'mradmm_q1.05/N5_even/a2' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#cc00cc' pt 0 notitle
set logscale y
set yrange [0.33:2]
set ytics (0.35, 0.4, 0.5, 0.7, 1, 1.5, 2)
set xlabel 'iteration t'
set ylabel 'L(t) (average training loss)'
set title 'alpha = 1'
plot 'fig4-003_summary.csv' using 5:(strcol(1) eq 'admm/N5_even/a0' ? $7 : NaN) with lines lc rgb '#00aa00' lw 2 title 'ADMM non-private (eta=1)', \
  'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1/N5_even/a1' ? $7 : NaN) with lines lc rgb '#000000' lw 2 title 'R-ADMM (q1=1)', '' using 5:(strcol(1) eq 'mradmm_q1/N5_even/a1' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#000000' pt 0 notitle, \
  'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.01/N5_even/a1' ? $7 : NaN) with lines lc rgb '#dd0000' lw 2 title 'MR-ADMM q1=1.01', '' using 5:(strcol(1) eq 'mradmm_q1.01/N5_even/a1' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#dd0000' pt 0 notitle, \
  'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.02/N5_even/a1' ? $7 : NaN) with lines lc rgb '#ff8800' lw 2 title 'MR-ADMM q1=1.02', '' using 5:(strcol(1) eq 'mradmm_q1.02/N5_even/a1' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#ff8800' pt 0 notitle, \
  'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.03/N5_even/a1' ? $7 : NaN) with lines lc rgb '#00aaaa' lw 2 title 'MR-ADMM q1=1.03', '' using 5:(strcol(1) eq 'mradmm_q1.03/N5_even/a1' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#00aaaa' pt 0 notitle, \
  'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.04/N5_even/a1' ? $7 : NaN) with lines lc rgb '#0000dd' lw 2 title 'MR-ADMM q1=1.04', '' using 5:(strcol(1) eq 'mradmm_q1.04/N5_even/a1' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#0000dd' pt 0 notitle, \
  'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.05/N5_even/a1' ? $7 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'MR-ADMM q1=1.05', '' using 5:(strcol(1) eq 'mradmm_q1.05/N5_even/a1' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#cc00cc' pt 0 notitle
unset logscale y
set yrange [0:*]
set ytics autofreq
set xlabel 'iteration t'
set ylabel 'privacy bound P(t) (003 eq. (32))'
set title 'alpha = 2'
plot 'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1/N5_even/a2' ? $13 : NaN) with lines lc rgb '#000000' lw 2 title 'R-ADMM (q1=1)', \
  'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.01/N5_even/a2' ? $13 : NaN) with lines lc rgb '#dd0000' lw 2 title 'MR-ADMM q1=1.01', \
  'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.02/N5_even/a2' ? $13 : NaN) with lines lc rgb '#ff8800' lw 2 title 'MR-ADMM q1=1.02', \
  'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.03/N5_even/a2' ? $13 : NaN) with lines lc rgb '#00aaaa' lw 2 title 'MR-ADMM q1=1.03', \
  'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.04/N5_even/a2' ? $13 : NaN) with lines lc rgb '#0000dd' lw 2 title 'MR-ADMM q1=1.04', \
  'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.05/N5_even/a2' ? $13 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'MR-ADMM q1=1.05'
unset logscale y
set yrange [0:*]
set ytics autofreq
set xlabel 'iteration t'
set ylabel 'privacy bound P(t) (003 eq. (32))'
set title 'alpha = 1'
plot 'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1/N5_even/a1' ? $13 : NaN) with lines lc rgb '#000000' lw 2 title 'R-ADMM (q1=1)', \
  'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.01/N5_even/a1' ? $13 : NaN) with lines lc rgb '#dd0000' lw 2 title 'MR-ADMM q1=1.01', \
  'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.02/N5_even/a1' ? $13 : NaN) with lines lc rgb '#ff8800' lw 2 title 'MR-ADMM q1=1.02', \
  'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.03/N5_even/a1' ? $13 : NaN) with lines lc rgb '#00aaaa' lw 2 title 'MR-ADMM q1=1.03', \
  'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.04/N5_even/a1' ? $13 : NaN) with lines lc rgb '#0000dd' lw 2 title 'MR-ADMM q1=1.04', \
  'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.05/N5_even/a1' ? $13 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'MR-ADMM q1=1.05'
unset logscale y
set yrange [0.15:0.3]
set ytics autofreq
set xlabel 'iteration t'
set ylabel 'test error E(t)'
set title 'alpha = 2'
plot 'fig4-003_summary.csv' using 5:(strcol(1) eq 'admm/N5_even/a0' ? $10 : NaN) with lines lc rgb '#00aa00' lw 2 title 'ADMM non-private (eta=1)', \
  'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1/N5_even/a2' ? $10 : NaN) with lines lc rgb '#000000' lw 2 title 'R-ADMM (q1=1)', '' using 5:(strcol(1) eq 'mradmm_q1/N5_even/a2' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#000000' pt 0 notitle, \
  'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.01/N5_even/a2' ? $10 : NaN) with lines lc rgb '#dd0000' lw 2 title 'MR-ADMM q1=1.01', '' using 5:(strcol(1) eq 'mradmm_q1.01/N5_even/a2' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#dd0000' pt 0 notitle, \
  'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.02/N5_even/a2' ? $10 : NaN) with lines lc rgb '#ff8800' lw 2 title 'MR-ADMM q1=1.02', '' using 5:(strcol(1) eq 'mradmm_q1.02/N5_even/a2' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#ff8800' pt 0 notitle, \
  'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.03/N5_even/a2' ? $10 : NaN) with lines lc rgb '#00aaaa' lw 2 title 'MR-ADMM q1=1.03', '' using 5:(strcol(1) eq 'mradmm_q1.03/N5_even/a2' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#00aaaa' pt 0 notitle, \
  'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.04/N5_even/a2' ? $10 : NaN) with lines lc rgb '#0000dd' lw 2 title 'MR-ADMM q1=1.04', '' using 5:(strcol(1) eq 'mradmm_q1.04/N5_even/a2' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#0000dd' pt 0 notitle, \
  'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.05/N5_even/a2' ? $10 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'MR-ADMM q1=1.05', '' using 5:(strcol(1) eq 'mradmm_q1.05/N5_even/a2' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#cc00cc' pt 0 notitle
unset logscale y
set yrange [0.15:0.3]
set ytics autofreq
set xlabel 'iteration t'
set ylabel 'test error E(t)'
set title 'alpha = 1'
plot 'fig4-003_summary.csv' using 5:(strcol(1) eq 'admm/N5_even/a0' ? $10 : NaN) with lines lc rgb '#00aa00' lw 2 title 'ADMM non-private (eta=1)', \
  'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1/N5_even/a1' ? $10 : NaN) with lines lc rgb '#000000' lw 2 title 'R-ADMM (q1=1)', '' using 5:(strcol(1) eq 'mradmm_q1/N5_even/a1' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#000000' pt 0 notitle, \
  'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.01/N5_even/a1' ? $10 : NaN) with lines lc rgb '#dd0000' lw 2 title 'MR-ADMM q1=1.01', '' using 5:(strcol(1) eq 'mradmm_q1.01/N5_even/a1' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#dd0000' pt 0 notitle, \
  'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.02/N5_even/a1' ? $10 : NaN) with lines lc rgb '#ff8800' lw 2 title 'MR-ADMM q1=1.02', '' using 5:(strcol(1) eq 'mradmm_q1.02/N5_even/a1' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#ff8800' pt 0 notitle, \
  'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.03/N5_even/a1' ? $10 : NaN) with lines lc rgb '#00aaaa' lw 2 title 'MR-ADMM q1=1.03', '' using 5:(strcol(1) eq 'mradmm_q1.03/N5_even/a1' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#00aaaa' pt 0 notitle, \
  'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.04/N5_even/a1' ? $10 : NaN) with lines lc rgb '#0000dd' lw 2 title 'MR-ADMM q1=1.04', '' using 5:(strcol(1) eq 'mradmm_q1.04/N5_even/a1' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#0000dd' pt 0 notitle, \
  'fig4-003_summary.csv' using 5:(strcol(1) eq 'mradmm_q1.05/N5_even/a1' ? $10 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'MR-ADMM q1=1.05', '' using 5:(strcol(1) eq 'mradmm_q1.05/N5_even/a1' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#cc00cc' pt 0 notitle
unset multiplot
