# fig3-003: written by dpadmm_repro; run from this directory with `gnuplot fig3-003.gp`
set terminal png noenhanced size 1300,1000 font 'DejaVu Sans,9'
set output 'fig3-003.png'
set datafile separator ','
set key top right font ',8'
set grid
set multiplot layout 2,2 title '003 Fig. 3 on Adult: private MR-ADMM, eta_i(2k-1) = 1.01^k, N = 5, rho = 0.22, C = 1750; mean of 10 runs, bars = min..max every 10 rounds'
set logscale y
set yrange [0.33:2]
set ytics (0.35, 0.4, 0.5, 0.7, 1, 1.5, 2)
set xlabel 'iteration t'
set ylabel 'L(t) (average training loss)'
set title 'alpha = 1'
plot 'fig3-003_summary.csv' using 5:(strcol(1) eq 'admm/N5_even/a0' ? $7 : NaN) with lines lc rgb '#00aa00' lw 2 title 'ADMM non-private (eta=1)', \
  'fig3-003_summary.csv' using 5:(strcol(1) eq 'mradmm_g0.1/N5_even/a1' ? $7 : NaN) with lines lc rgb '#dd0000' lw 2 title 'MR-ADMM gamma=0.1', '' using 5:(strcol(1) eq 'mradmm_g0.1/N5_even/a1' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#dd0000' pt 0 notitle, \
  'fig3-003_summary.csv' using 5:(strcol(1) eq 'mradmm_g0.5/N5_even/a1' ? $7 : NaN) with lines lc rgb '#ff8800' lw 2 title 'MR-ADMM gamma=0.5', '' using 5:(strcol(1) eq 'mradmm_g0.5/N5_even/a1' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#ff8800' pt 0 notitle, \
  'fig3-003_summary.csv' using 5:(strcol(1) eq 'mradmm_g1/N5_even/a1' ? $7 : NaN) with lines lc rgb '#00aaaa' lw 2 title 'MR-ADMM gamma=1', '' using 5:(strcol(1) eq 'mradmm_g1/N5_even/a1' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#00aaaa' pt 0 notitle, \
  'fig3-003_summary.csv' using 5:(strcol(1) eq 'mradmm_g2/N5_even/a1' ? $7 : NaN) with lines lc rgb '#0000dd' lw 2 title 'MR-ADMM gamma=2', '' using 5:(strcol(1) eq 'mradmm_g2/N5_even/a1' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#0000dd' pt 0 notitle
set logscale y
set yrange [0.33:2]
set ytics (0.35, 0.4, 0.5, 0.7, 1, 1.5, 2)
set xlabel 'iteration t'
set ylabel 'L(t) (average training loss)'
set title 'alpha = 2'
plot 'fig3-003_summary.csv' using 5:(strcol(1) eq 'admm/N5_even/a0' ? $7 : NaN) with lines lc rgb '#00aa00' lw 2 title 'ADMM non-private (eta=1)', \
  'fig3-003_summary.csv' using 5:(strcol(1) eq 'mradmm_g0.1/N5_even/a2' ? $7 : NaN) with lines lc rgb '#dd0000' lw 2 title 'MR-ADMM gamma=0.1', '' using 5:(strcol(1) eq 'mradmm_g0.1/N5_even/a2' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#dd0000' pt 0 notitle, \
  'fig3-003_summary.csv' using 5:(strcol(1) eq 'mradmm_g0.5/N5_even/a2' ? $7 : NaN) with lines lc rgb '#ff8800' lw 2 title 'MR-ADMM gamma=0.5', '' using 5:(strcol(1) eq 'mradmm_g0.5/N5_even/a2' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#ff8800' pt 0 notitle, \
  'fig3-003_summary.csv' using 5:(strcol(1) eq 'mradmm_g1/N5_even/a2' ? $7 : NaN) with lines lc rgb '#00aaaa' lw 2 title 'MR-ADMM gamma=1', '' using 5:(strcol(1) eq 'mradmm_g1/N5_even/a2' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#00aaaa' pt 0 notitle, \
  'fig3-003_summary.csv' using 5:(strcol(1) eq 'mradmm_g2/N5_even/a2' ? $7 : NaN) with lines lc rgb '#0000dd' lw 2 title 'MR-ADMM gamma=2', '' using 5:(strcol(1) eq 'mradmm_g2/N5_even/a2' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#0000dd' pt 0 notitle
unset logscale y
set yrange [0.15:0.3]
set ytics autofreq
set xlabel 'iteration t'
set ylabel 'test error E(t)'
set title 'alpha = 1'
plot 'fig3-003_summary.csv' using 5:(strcol(1) eq 'admm/N5_even/a0' ? $10 : NaN) with lines lc rgb '#00aa00' lw 2 title 'ADMM non-private (eta=1)', \
  'fig3-003_summary.csv' using 5:(strcol(1) eq 'mradmm_g0.1/N5_even/a1' ? $10 : NaN) with lines lc rgb '#dd0000' lw 2 title 'MR-ADMM gamma=0.1', '' using 5:(strcol(1) eq 'mradmm_g0.1/N5_even/a1' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#dd0000' pt 0 notitle, \
  'fig3-003_summary.csv' using 5:(strcol(1) eq 'mradmm_g0.5/N5_even/a1' ? $10 : NaN) with lines lc rgb '#ff8800' lw 2 title 'MR-ADMM gamma=0.5', '' using 5:(strcol(1) eq 'mradmm_g0.5/N5_even/a1' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#ff8800' pt 0 notitle, \
  'fig3-003_summary.csv' using 5:(strcol(1) eq 'mradmm_g1/N5_even/a1' ? $10 : NaN) with lines lc rgb '#00aaaa' lw 2 title 'MR-ADMM gamma=1', '' using 5:(strcol(1) eq 'mradmm_g1/N5_even/a1' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#00aaaa' pt 0 notitle, \
  'fig3-003_summary.csv' using 5:(strcol(1) eq 'mradmm_g2/N5_even/a1' ? $10 : NaN) with lines lc rgb '#0000dd' lw 2 title 'MR-ADMM gamma=2', '' using 5:(strcol(1) eq 'mradmm_g2/N5_even/a1' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#0000dd' pt 0 notitle
unset logscale y
set yrange [0.15:0.3]
set ytics autofreq
set xlabel 'iteration t'
set ylabel 'test error E(t)'
set title 'alpha = 2'
plot 'fig3-003_summary.csv' using 5:(strcol(1) eq 'admm/N5_even/a0' ? $10 : NaN) with lines lc rgb '#00aa00' lw 2 title 'ADMM non-private (eta=1)', \
  'fig3-003_summary.csv' using 5:(strcol(1) eq 'mradmm_g0.1/N5_even/a2' ? $10 : NaN) with lines lc rgb '#dd0000' lw 2 title 'MR-ADMM gamma=0.1', '' using 5:(strcol(1) eq 'mradmm_g0.1/N5_even/a2' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#dd0000' pt 0 notitle, \
  'fig3-003_summary.csv' using 5:(strcol(1) eq 'mradmm_g0.5/N5_even/a2' ? $10 : NaN) with lines lc rgb '#ff8800' lw 2 title 'MR-ADMM gamma=0.5', '' using 5:(strcol(1) eq 'mradmm_g0.5/N5_even/a2' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#ff8800' pt 0 notitle, \
  'fig3-003_summary.csv' using 5:(strcol(1) eq 'mradmm_g1/N5_even/a2' ? $10 : NaN) with lines lc rgb '#00aaaa' lw 2 title 'MR-ADMM gamma=1', '' using 5:(strcol(1) eq 'mradmm_g1/N5_even/a2' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#00aaaa' pt 0 notitle, \
  'fig3-003_summary.csv' using 5:(strcol(1) eq 'mradmm_g2/N5_even/a2' ? $10 : NaN) with lines lc rgb '#0000dd' lw 2 title 'MR-ADMM gamma=2', '' using 5:(strcol(1) eq 'mradmm_g2/N5_even/a2' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#0000dd' pt 0 notitle
unset multiplot
