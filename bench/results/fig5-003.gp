# fig5-003: written by dpadmm_repro; run from this directory with `gnuplot fig5-003.gp`
set terminal png noenhanced size 1800,1500 font 'DejaVu Sans,9'
set output 'fig5-003.png'
set datafile separator ','
set key top right font ',8'
set grid
set multiplot layout 3,3 title '003 Fig. 5 on Adult: N = 5 (7 edges), rho = 0.22, C = 1750, gamma = 0.5; mean of 10 runs, bars = min..max every 10 rounds; noise matched to private MR-ADMM total bound'
set logscale y
set yrange [0.33:5]
set ytics (0.35, 0.4, 0.5, 0.7, 1, 1.5, 2, 3, 5)
set xlabel 'iteration t'
set ylabel 'L(t) (average training loss)'
set title 'alpha = 2'
plot 'fig5-003_summary.csv' using 5:(strcol(1) eq 'admm/N5_even/a0' ? $7 : NaN) with lines lc rgb '#00aa00' lw 2 title 'ADMM non-private (eta=1)', \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'mradmm/N5_even/a2' ? $7 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'MR-ADMM (eta=1.04^k)', '' using 5:(strcol(1) eq 'mradmm/N5_even/a2' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#cc00cc' pt 0 notitle, \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'radmm/N5_even/a2' ? $7 : NaN) with lines lc rgb '#dd0000' lw 2 title 'R-ADMM (eta=1)', '' using 5:(strcol(1) eq 'radmm/N5_even/a2' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#dd0000' pt 0 notitle, \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'dvp_eta1/N5_even/a2' ? $7 : NaN) with lines lc rgb '#000000' lw 2 title 'ADMM-DVP (eta=1)', '' using 5:(strcol(1) eq 'dvp_eta1/N5_even/a2' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#000000' pt 0 notitle, \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'dvp_eta10/N5_even/a2' ? $7 : NaN) with lines lc rgb '#888888' lw 2 title 'ADMM-DVP (eta=10)', '' using 5:(strcol(1) eq 'dvp_eta10/N5_even/a2' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#888888' pt 0 notitle, \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'madmm/N5_even/a2' ? $7 : NaN) with lines lc rgb '#0000dd' lw 2 title 'M-ADMM PP (eta=1.04^(t-1))', '' using 5:(strcol(1) eq 'madmm/N5_even/a2' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#0000dd' pt 0 notitle, \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'madmm_q2/N5_even/a2' ? $7 : NaN) with lines lc rgb '#3399ff' lw 2 title 'M-ADMM PP (q1=q2=1.04)', '' using 5:(strcol(1) eq 'madmm_q2/N5_even/a2' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#3399ff' pt 0 notitle
set logscale y
set yrange [0.33:5]
set ytics (0.35, 0.4, 0.5, 0.7, 1, 1.5, 2, 3, 5)
set xlabel 'iteration t'
set ylabel 'L(t) (average training loss)'
set title 'alpha = 1'
plot 'fig5-003_summary.csv' using 5:(strcol(1) eq 'admm/N5_even/a0' ? $7 : NaN) with lines lc rgb '#00aa00' lw 2 title 'ADMM non-private (eta=1)', \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'mradmm/N5_even/a1' ? $7 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'MR-ADMM (eta=1.04^k)', '' using 5:(strcol(1) eq 'mradmm/N5_even/a1' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#cc00cc' pt 0 notitle, \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'radmm/N5_even/a1' ? $7 : NaN) with lines lc rgb '#dd0000' lw 2 title 'R-ADMM (eta=1)', '' using 5:(strcol(1) eq 'radmm/N5_even/a1' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#dd0000' pt 0 notitle, \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'dvp_eta1/N5_even/a1' ? $7 : NaN) with lines lc rgb '#000000' lw 2 title 'ADMM-DVP (eta=1)', '' using 5:(strcol(1) eq 'dvp_eta1/N5_even/a1' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#000000' pt 0 notitle, \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'dvp_eta10/N5_even/a1' ? $7 : NaN) with lines lc rgb '#888888' lw 2 title 'ADMM-DVP (eta=10)', '' using 5:(strcol(1) eq 'dvp_eta10/N5_even/a1' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#888888' pt 0 notitle, \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'madmm/N5_even/a1' ? $7 : NaN) with lines lc rgb '#0000dd' lw 2 title 'M-ADMM PP (eta=1.04^(t-1))', '' using 5:(strcol(1) eq 'madmm/N5_even/a1' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#0000dd' pt 0 notitle, \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'madmm_q2/N5_even/a1' ? $7 : NaN) with lines lc rgb '#3399ff' lw 2 title 'M-ADMM PP (q1=q2=1.04)', '' using 5:(strcol(1) eq 'madmm_q2/N5_even/a1' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#3399ff' pt 0 notitle
set logscale y
set yrange [0.33:5]
set ytics (0.35, 0.4, 0.5, 0.7, 1, 1.5, 2, 3, 5)
set xlabel 'iteration t'
set ylabel 'L(t) (average training loss)'
set title 'alpha = 0.5'
plot 'fig5-003_summary.csv' using 5:(strcol(1) eq 'admm/N5_even/a0' ? $7 : NaN) with lines lc rgb '#00aa00' lw 2 title 'ADMM non-private (eta=1)', \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'mradmm/N5_even/a0.5' ? $7 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'MR-ADMM (eta=1.04^k)', '' using 5:(strcol(1) eq 'mradmm/N5_even/a0.5' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#cc00cc' pt 0 notitle, \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'radmm/N5_even/a0.5' ? $7 : NaN) with lines lc rgb '#dd0000' lw 2 title 'R-ADMM (eta=1)', '' using 5:(strcol(1) eq 'radmm/N5_even/a0.5' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#dd0000' pt 0 notitle, \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'dvp_eta1/N5_even/a0.5' ? $7 : NaN) with lines lc rgb '#000000' lw 2 title 'ADMM-DVP (eta=1)', '' using 5:(strcol(1) eq 'dvp_eta1/N5_even/a0.5' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#000000' pt 0 notitle, \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'dvp_eta10/N5_even/a0.5' ? $7 : NaN) with lines lc rgb '#888888' lw 2 title 'ADMM-DVP (eta=10)', '' using 5:(strcol(1) eq 'dvp_eta10/N5_even/a0.5' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#888888' pt 0 notitle, \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'madmm/N5_even/a0.5' ? $7 : NaN) with lines lc rgb '#0000dd' lw 2 title 'M-ADMM PP (eta=1.04^(t-1))', '' using 5:(strcol(1) eq 'madmm/N5_even/a0.5' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#0000dd' pt 0 notitle, \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'madmm_q2/N5_even/a0.5' ? $7 : NaN) with lines lc rgb '#3399ff' lw 2 title 'M-ADMM PP (q1=q2=1.04)', '' using 5:(strcol(1) eq 'madmm_q2/N5_even/a0.5' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#3399ff' pt 0 notitle
unset logscale y
set yrange [0:*]
set ytics autofreq
set xlabel 'iteration t'
set ylabel 'privacy bound P(t) (as reported)'
set title 'alpha = 2'
plot 'fig5-003_summary.csv' using 5:(strcol(1) eq 'mradmm/N5_even/a2' ? $13 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'MR-ADMM (eta=1.04^k)', \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'radmm/N5_even/a2' ? $13 : NaN) with lines lc rgb '#dd0000' lw 2 title 'R-ADMM (eta=1)', \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'dvp_eta1/N5_even/a2' ? $13 : NaN) with lines lc rgb '#000000' lw 2 title 'ADMM-DVP (eta=1)', \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'dvp_eta10/N5_even/a2' ? $13 : NaN) with lines lc rgb '#888888' lw 2 title 'ADMM-DVP (eta=10)', \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'madmm/N5_even/a2' ? $13 : NaN) with lines lc rgb '#0000dd' lw 2 title 'M-ADMM PP (eta=1.04^(t-1))', \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'madmm_q2/N5_even/a2' ? $13 : NaN) with lines lc rgb '#3399ff' lw 2 title 'M-ADMM PP (q1=q2=1.04)'
unset logscale y
set yrange [0:*]
set ytics autofreq
set xlabel 'iteration t'
set ylabel 'privacy bound P(t) (as reported)'
set title 'alpha = 1'
plot 'fig5-003_summary.csv' using 5:(strcol(1) eq 'mradmm/N5_even/a1' ? $13 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'MR-ADMM (eta=1.04^k)', \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'radmm/N5_even/a1' ? $13 : NaN) with lines lc rgb '#dd0000' lw 2 title 'R-ADMM (eta=1)', \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'dvp_eta1/N5_even/a1' ? $13 : NaN) with lines lc rgb '#000000' lw 2 title 'ADMM-DVP (eta=1)', \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'dvp_eta10/N5_even/a1' ? $13 : NaN) with lines lc rgb '#888888' lw 2 title 'ADMM-DVP (eta=10)', \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'madmm/N5_even/a1' ? $13 : NaN) with lines lc rgb '#0000dd' lw 2 title 'M-ADMM PP (eta=1.04^(t-1))', \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'madmm_q2/N5_even/a1' ? $13 : NaN) with lines lc rgb '#3399ff' lw 2 title 'M-ADMM PP (q1=q2=1.04)'
unset logscale y
set yrange [0:*]
set ytics autofreq
set xlabel 'iteration t'
set ylabel 'privacy bound P(t) (as reported)'
set title 'alpha = 0.5'
plot 'fig5-003_summary.csv' using 5:(strcol(1) eq 'mradmm/N5_even/a0.5' ? $13 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'MR-ADMM (eta=1.04^k)', \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'radmm/N5_even/a0.5' ? $13 : NaN) with lines lc rgb '#dd0000' lw 2 title 'R-ADMM (eta=1)', \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'dvp_eta1/N5_even/a0.5' ? $13 : NaN) with lines lc rgb '#000000' lw 2 title 'ADMM-DVP (eta=1)', \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'dvp_eta10/N5_even/a0.5' ? $13 : NaN) with lines lc rgb '#888888' lw 2 title 'ADMM-DVP (eta=10)', \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'madmm/N5_even/a0.5' ? $13 : NaN) with lines lc rgb '#0000dd' lw 2 title 'M-ADMM PP (eta=1.04^(t-1))', \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'madmm_q2/N5_even/a0.5' ? $13 : NaN) with lines lc rgb '#3399ff' lw 2 title 'M-ADMM PP (q1=q2=1.04)'
unset logscale y
set yrange [0.15:0.35]
set ytics autofreq
set xlabel 'iteration t'
set ylabel 'test error'
set title 'alpha = 2'
plot 'fig5-003_summary.csv' using 5:(strcol(1) eq 'admm/N5_even/a0' ? $10 : NaN) with lines lc rgb '#00aa00' lw 2 title 'ADMM non-private (eta=1)', \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'mradmm/N5_even/a2' ? $10 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'MR-ADMM (eta=1.04^k)', '' using 5:(strcol(1) eq 'mradmm/N5_even/a2' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#cc00cc' pt 0 notitle, \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'radmm/N5_even/a2' ? $10 : NaN) with lines lc rgb '#dd0000' lw 2 title 'R-ADMM (eta=1)', '' using 5:(strcol(1) eq 'radmm/N5_even/a2' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#dd0000' pt 0 notitle, \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'dvp_eta1/N5_even/a2' ? $10 : NaN) with lines lc rgb '#000000' lw 2 title 'ADMM-DVP (eta=1)', '' using 5:(strcol(1) eq 'dvp_eta1/N5_even/a2' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#000000' pt 0 notitle, \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'dvp_eta10/N5_even/a2' ? $10 : NaN) with lines lc rgb '#888888' lw 2 title 'ADMM-DVP (eta=10)', '' using 5:(strcol(1) eq 'dvp_eta10/N5_even/a2' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#888888' pt 0 notitle, \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'madmm/N5_even/a2' ? $10 : NaN) with lines lc rgb '#0000dd' lw 2 title 'M-ADMM PP (eta=1.04^(t-1))', '' using 5:(strcol(1) eq 'madmm/N5_even/a2' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#0000dd' pt 0 notitle, \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'madmm_q2/N5_even/a2' ? $10 : NaN) with lines lc rgb '#3399ff' lw 2 title 'M-ADMM PP (q1=q2=1.04)', '' using 5:(strcol(1) eq 'madmm_q2/N5_even/a2' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#3399ff' pt 0 notitle
unset logscale y
set yrange [0.15:0.35]
set ytics autofreq
set xlabel 'iteration t'
set ylabel 'test error'
set title 'alpha = 1'
plot 'fig5-003_summary.csv' using 5:(strcol(1) eq 'admm/N5_even/a0' ? $10 : NaN) with lines lc rgb '#00aa00' lw 2 title 'ADMM non-private (eta=1)', \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'mradmm/N5_even/a1' ? $10 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'MR-ADMM (eta=1.04^k)', '' using 5:(strcol(1) eq 'mradmm/N5_even/a1' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#cc00cc' pt 0 notitle, \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'radmm/N5_even/a1' ? $10 : NaN) with lines lc rgb '#dd0000' lw 2 title 'R-ADMM (eta=1)', '' using 5:(strcol(1) eq 'radmm/N5_even/a1' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#dd0000' pt 0 notitle, \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'dvp_eta1/N5_even/a1' ? $10 : NaN) with lines lc rgb '#000000' lw 2 title 'ADMM-DVP (eta=1)', '' using 5:(strcol(1) eq 'dvp_eta1/N5_even/a1' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#000000' pt 0 notitle, \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'dvp_eta10/N5_even/a1' ? $10 : NaN) with lines lc rgb '#888888' lw 2 title 'ADMM-DVP (eta=10)', '' using 5:(strcol(1) eq 'dvp_eta10/N5_even/a1' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#888888' pt 0 notitle, \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'madmm/N5_even/a1' ? $10 : NaN) with lines lc rgb '#0000dd' lw 2 title 'M-ADMM PP (eta=1.04^(t-1))', '' using 5:(strcol(1) eq 'madmm/N5_even/a1' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#0000dd' pt 0 notitle, \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'madmm_q2/N5_even/a1' ? $10 : NaN) with lines lc rgb '#3399ff' lw 2 title 'M-ADMM PP (q1=q2=1.04)', '' using 5:(strcol(1) eq 'madmm_q2/N5_even/a1' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#3399ff' pt 0 notitle
unset logscale y
set yrange [0.15:0.35]
set ytics autofreq
set xlabel 'iteration t'
set ylabel 'test error'
set title 'alpha = 0.5'
plot 'fig5-003_summary.csv' using 5:(strcol(1) eq 'admm/N5_even/a0' ? $10 : NaN) with lines lc rgb '#00aa00' lw 2 title 'ADMM non-private (eta=1)', \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'mradmm/N5_even/a0.5' ? $10 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'MR-ADMM (eta=1.04^k)', '' using 5:(strcol(1) eq 'mradmm/N5_even/a0.5' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#cc00cc' pt 0 notitle, \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'radmm/N5_even/a0.5' ? $10 : NaN) with lines lc rgb '#dd0000' lw 2 title 'R-ADMM (eta=1)', '' using 5:(strcol(1) eq 'radmm/N5_even/a0.5' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#dd0000' pt 0 notitle, \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'dvp_eta1/N5_even/a0.5' ? $10 : NaN) with lines lc rgb '#000000' lw 2 title 'ADMM-DVP (eta=1)', '' using 5:(strcol(1) eq 'dvp_eta1/N5_even/a0.5' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#000000' pt 0 notitle, \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'dvp_eta10/N5_even/a0.5' ? $10 : NaN) with lines lc rgb '#888888' lw 2 title 'ADMM-DVP (eta=10)', '' using 5:(strcol(1) eq 'dvp_eta10/N5_even/a0.5' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#888888' pt 0 notitle, \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'madmm/N5_even/a0.5' ? $10 : NaN) with lines lc rgb '#0000dd' lw 2 title 'M-ADMM PP (eta=1.04^(t-1))', '' using 5:(strcol(1) eq 'madmm/N5_even/a0.5' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#0000dd' pt 0 notitle, \
  'fig5-003_summary.csv' using 5:(strcol(1) eq 'madmm_q2/N5_even/a0.5' ? $10 : NaN) with lines lc rgb '#3399ff' lw 2 title 'M-ADMM PP (q1=q2=1.04)', '' using 5:(strcol(1) eq 'madmm_q2/N5_even/a0.5' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#3399ff' pt 0 notitle
unset multiplot
