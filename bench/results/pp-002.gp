# pp-002: written by dpadmm_repro; run from this directory with `gnuplot pp-002.gp`
set terminal png noenhanced size 2000,1900 font 'DejaVu Sans,9'
set output 'pp-002.png'
set datafile separator ','
set key top right font ',8'
set grid
set multiplot layout 4,4 title '002 on Adult: DVP-like M-ADMM vs penalty perturbation, theta = 1, rho = 0.22, C = 1750; mean of 4 runs, bars = min..max every 10 rounds'
set xlabel 'iteration t'
set title 'N5_even, alpha = 3'
set logscale y
set yrange [0.3:2]
set ytics (0.3, 0.35, 0.4, 0.5, 0.7, 1, 1.5, 2)
set ylabel 'L(t)'
plot 'pp-002_summary.csv' using 5:(strcol(1) eq 'admm/N5_even/a0' ? $7 : NaN) with lines lc rgb '#00aa00' lw 2 title 'ADMM non-private', \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'dvp_like/N5_even/a3' ? $7 : NaN) with lines lc rgb '#000000' lw 2 title 'DVP-like M-ADMM (q1=1)', '' using 5:(strcol(1) eq 'dvp_like/N5_even/a3' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#000000' pt 0 notitle, \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'pp/N5_even/a3' ? $7 : NaN) with lines lc rgb '#0000dd' lw 2 title 'PP (q1=1.03, q2=1)', '' using 5:(strcol(1) eq 'pp/N5_even/a3' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#0000dd' pt 0 notitle, \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'pp_q2/N5_even/a3' ? $7 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'PP (q1=q2=1.03)', '' using 5:(strcol(1) eq 'pp_q2/N5_even/a3' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#cc00cc' pt 0 notitle
set title 'N5_even, alpha = 5'
set logscale y
set yrange [0.3:2]
set ytics (0.3, 0.35, 0.4, 0.5, 0.7, 1, 1.5, 2)
set ylabel 'L(t)'
plot 'pp-002_summary.csv' using 5:(strcol(1) eq 'admm/N5_even/a0' ? $7 : NaN) with lines lc rgb '#00aa00' lw 2 title 'ADMM non-private', \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'dvp_like/N5_even/a5' ? $7 : NaN) with lines lc rgb '#000000' lw 2 title 'DVP-like M-ADMM (q1=1)', '' using 5:(strcol(1) eq 'dvp_like/N5_even/a5' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#000000' pt 0 notitle, \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'pp/N5_even/a5' ? $7 : NaN) with lines lc rgb '#0000dd' lw 2 title 'PP (q1=1.03, q2=1)', '' using 5:(strcol(1) eq 'pp/N5_even/a5' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#0000dd' pt 0 notitle, \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'pp_q2/N5_even/a5' ? $7 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'PP (q1=q2=1.03)', '' using 5:(strcol(1) eq 'pp_q2/N5_even/a5' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#cc00cc' pt 0 notitle
set title 'N5_even, alpha = 3'
unset logscale y
set yrange [0:*]
set ytics autofreq
set ylabel 'P(t)'
plot 'pp-002_summary.csv' using 5:(strcol(1) eq 'dvp_like/N5_even/a3' ? $13 : NaN) with lines lc rgb '#000000' lw 2 title 'DVP-like M-ADMM (q1=1)', \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'pp/N5_even/a3' ? $13 : NaN) with lines lc rgb '#0000dd' lw 2 title 'PP (q1=1.03, q2=1)', \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'pp_q2/N5_even/a3' ? $13 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'PP (q1=q2=1.03)'
set title 'N5_even, alpha = 5'
unset logscale y
set yrange [0:*]
set ytics autofreq
set ylabel 'P(t)'
plot 'pp-002_summary.csv' using 5:(strcol(1) eq 'dvp_like/N5_even/a5' ? $13 : NaN) with lines lc rgb '#000000' lw 2 title 'DVP-like M-ADMM (q1=1)', \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'pp/N5_even/a5' ? $13 : NaN) with lines lc rgb '#0000dd' lw 2 title 'PP (q1=1.03, q2=1)', \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'pp_q2/N5_even/a5' ? $13 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'PP (q1=q2=1.03)'
set title 'N5_uneven, alpha = 3'
set logscale y
set yrange [0.3:2]
set ytics (0.3, 0.35, 0.4, 0.5, 0.7, 1, 1.5, 2)
set ylabel 'L(t)'
plot 'pp-002_summary.csv' using 5:(strcol(1) eq 'admm/N5_uneven/a0' ? $7 : NaN) with lines lc rgb '#00aa00' lw 2 title 'ADMM non-private', \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'dvp_like/N5_uneven/a3' ? $7 : NaN) with lines lc rgb '#000000' lw 2 title 'DVP-like M-ADMM (q1=1)', '' using 5:(strcol(1) eq 'dvp_like/N5_uneven/a3' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#000000' pt 0 notitle, \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'pp/N5_uneven/a3' ? $7 : NaN) with lines lc rgb '#0000dd' lw 2 title 'PP (q1=1.03, q2=1)', '' using 5:(strcol(1) eq 'pp/N5_uneven/a3' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#0000dd' pt 0 notitle, \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'pp_q2/N5_uneven/a3' ? $7 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'PP (q1=q2=1.03)', '' using 5:(strcol(1) eq 'pp_q2/N5_uneven/a3' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#cc00cc' pt 0 notitle
set title 'N5_uneven, alpha = 5'
set logscale y
set yrange [0.3:2]
set ytics (0.3, 0.35, 0.4, 0.5, 0.7, 1, 1.5, 2)
set ylabel 'L(t)'
plot 'pp-002_summary.csv' using 5:(strcol(1) eq 'admm/N5_uneven/a0' ? $7 : NaN) with lines lc rgb '#00aa00' lw 2 title 'ADMM non-private', \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'dvp_like/N5_uneven/a5' ? $7 : NaN) with lines lc rgb '#000000' lw 2 title 'DVP-like M-ADMM (q1=1)', '' using 5:(strcol(1) eq 'dvp_like/N5_uneven/a5' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#000000' pt 0 notitle, \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'pp/N5_uneven/a5' ? $7 : NaN) with lines lc rgb '#0000dd' lw 2 title 'PP (q1=1.03, q2=1)', '' using 5:(strcol(1) eq 'pp/N5_uneven/a5' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#0000dd' pt 0 notitle, \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'pp_q2/N5_uneven/a5' ? $7 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'PP (q1=q2=1.03)', '' using 5:(strcol(1) eq 'pp_q2/N5_uneven/a5' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#cc00cc' pt 0 notitle
set title 'N5_uneven, alpha = 3'
unset logscale y
set yrange [0:*]
set ytics autofreq
set ylabel 'P(t)'
plot 'pp-002_summary.csv' using 5:(strcol(1) eq 'dvp_like/N5_uneven/a3' ? $13 : NaN) with lines lc rgb '#000000' lw 2 title 'DVP-like M-ADMM (q1=1)', \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'pp/N5_uneven/a3' ? $13 : NaN) with lines lc rgb '#0000dd' lw 2 title 'PP (q1=1.03, q2=1)', \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'pp_q2/N5_uneven/a3' ? $13 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'PP (q1=q2=1.03)'
set title 'N5_uneven, alpha = 5'
unset logscale y
set yrange [0:*]
set ytics autofreq
set ylabel 'P(t)'
plot 'pp-002_summary.csv' using 5:(strcol(1) eq 'dvp_like/N5_uneven/a5' ? $13 : NaN) with lines lc rgb '#000000' lw 2 title 'DVP-like M-ADMM (q1=1)', \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'pp/N5_uneven/a5' ? $13 : NaN) with lines lc rgb '#0000dd' lw 2 title 'PP (q1=1.03, q2=1)', \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'pp_q2/N5_uneven/a5' ? $13 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'PP (q1=q2=1.03)'
set title 'N100_even, alpha = 3'
set logscale y
set yrange [0.3:2]
set ytics (0.3, 0.35, 0.4, 0.5, 0.7, 1, 1.5, 2)
set ylabel 'L(t)'
plot 'pp-002_summary.csv' using 5:(strcol(1) eq 'admm/N100_even/a0' ? $7 : NaN) with lines lc rgb '#00aa00' lw 2 title 'ADMM non-private', \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'dvp_like/N100_even/a3' ? $7 : NaN) with lines lc rgb '#000000' lw 2 title 'DVP-like M-ADMM (q1=1)', '' using 5:(strcol(1) eq 'dvp_like/N100_even/a3' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#000000' pt 0 notitle, \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'pp/N100_even/a3' ? $7 : NaN) with lines lc rgb '#0000dd' lw 2 title 'PP (q1=1.03, q2=1)', '' using 5:(strcol(1) eq 'pp/N100_even/a3' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#0000dd' pt 0 notitle, \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'pp_q2/N100_even/a3' ? $7 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'PP (q1=q2=1.03)', '' using 5:(strcol(1) eq 'pp_q2/N100_even/a3' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#cc00cc' pt 0 notitle
set title 'N100_even, alpha = 5'
set logscale y
set yrange [0.3:2]
set ytics (0.3, 0.35, 0.4, 0.5, 0.7, 1, 1.5, 2)
set ylabel 'L(t)'
plot 'pp-002_summary.csv' using 5:(strcol(1) eq 'admm/N100_even/a0' ? $7 : NaN) with lines lc rgb '#00aa00' lw 2 title 'ADMM non-private', \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'dvp_like/N100_even/a5' ? $7 : NaN) with lines lc rgb '#000000' lw 2 title 'DVP-like M-ADMM (q1=1)', '' using 5:(strcol(1) eq 'dvp_like/N100_even/a5' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#000000' pt 0 notitle, \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'pp/N100_even/a5' ? $7 : NaN) with lines lc rgb '#0000dd' lw 2 title 'PP (q1=1.03, q2=1)', '' using 5:(strcol(1) eq 'pp/N100_even/a5' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#0000dd' pt 0 notitle, \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'pp_q2/N100_even/a5' ? $7 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'PP (q1=q2=1.03)', '' using 5:(strcol(1) eq 'pp_q2/N100_even/a5' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#cc00cc' pt 0 notitle
set title 'N100_even, alpha = 3'
unset logscale y
set yrange [0:*]
set ytics autofreq
set ylabel 'P(t)'
plot 'pp-002_summary.csv' using 5:(strcol(1) eq 'dvp_like/N100_even/a3' ? $13 : NaN) with lines lc rgb '#000000' lw 2 title 'DVP-like M-ADMM (q1=1)', \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'pp/N100_even/a3' ? $13 : NaN) with lines lc rgb '#0000dd' lw 2 title 'PP (q1=1.03, q2=1)', \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'pp_q2/N100_even/a3' ? $13 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'PP (q1=q2=1.03)'
set title 'N100_even, alpha = 5'
unset logscale y
set yrange [0:*]
set ytics autofreq
set ylabel 'P(t)'
plot 'pp-002_summary.csv' using 5:(strcol(1) eq 'dvp_like/N100_even/a5' ? $13 : NaN) with lines lc rgb '#000000' lw 2 title 'DVP-like M-ADMM (q1=1)', \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'pp/N100_even/a5' ? $13 : NaN) with lines lc rgb '#0000dd' lw 2 title 'PP (q1=1.03, q2=1)', \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'pp_q2/N100_even/a5' ? $13 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'PP (q1=q2=1.03)'
set title 'N100_uneven, alpha = 3'
set logscale y
set yrange [0.3:2]
set ytics (0.3, 0.35, 0.4, 0.5, 0.7, 1, 1.5, 2)
set ylabel 'L(t)'
plot 'pp-002_summary.csv' using 5:(strcol(1) eq 'admm/N100_uneven/a0' ? $7 : NaN) with lines lc rgb '#00aa00' lw 2 title 'ADMM non-private', \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'dvp_like/N100_uneven/a3' ? $7 : NaN) with lines lc rgb '#000000' lw 2 title 'DVP-like M-ADMM (q1=1)', '' using 5:(strcol(1) eq 'dvp_like/N100_uneven/a3' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#000000' pt 0 notitle, \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'pp/N100_uneven/a3' ? $7 : NaN) with lines lc rgb '#0000dd' lw 2 title 'PP (q1=1.03, q2=1)', '' using 5:(strcol(1) eq 'pp/N100_uneven/a3' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#0000dd' pt 0 notitle, \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'pp_q2/N100_uneven/a3' ? $7 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'PP (q1=q2=1.03)', '' using 5:(strcol(1) eq 'pp_q2/N100_uneven/a3' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#cc00cc' pt 0 notitle
set title 'N100_uneven, alpha = 5'
set logscale y
set yrange [0.3:2]
set ytics (0.3, 0.35, 0.4, 0.5, 0.7, 1, 1.5, 2)
set ylabel 'L(t)'
plot 'pp-002_summary.csv' using 5:(strcol(1) eq 'admm/N100_uneven/a0' ? $7 : NaN) with lines lc rgb '#00aa00' lw 2 title 'ADMM non-private', \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'dvp_like/N100_uneven/a5' ? $7 : NaN) with lines lc rgb '#000000' lw 2 title 'DVP-like M-ADMM (q1=1)', '' using 5:(strcol(1) eq 'dvp_like/N100_uneven/a5' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#000000' pt 0 notitle, \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'pp/N100_uneven/a5' ? $7 : NaN) with lines lc rgb '#0000dd' lw 2 title 'PP (q1=1.03, q2=1)', '' using 5:(strcol(1) eq 'pp/N100_uneven/a5' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#0000dd' pt 0 notitle, \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'pp_q2/N100_uneven/a5' ? $7 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'PP (q1=q2=1.03)', '' using 5:(strcol(1) eq 'pp_q2/N100_uneven/a5' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#cc00cc' pt 0 notitle
set title 'N100_uneven, alpha = 3'
unset logscale y
set yrange [0:*]
set ytics autofreq
set ylabel 'P(t)'
plot 'pp-002_summary.csv' using 5:(strcol(1) eq 'dvp_like/N100_uneven/a3' ? $13 : NaN) with lines lc rgb '#000000' lw 2 title 'DVP-like M-ADMM (q1=1)', \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'pp/N100_uneven/a3' ? $13 : NaN) with lines lc rgb '#0000dd' lw 2 title 'PP (q1=1.03, q2=1)', \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'pp_q2/N100_uneven/a3' ? $13 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'PP (q1=q2=1.03)'
set title 'N100_uneven, alpha = 5'
unset logscale y
set yrange [0:*]
set ytics autofreq
set ylabel 'P(t)'
plot 'pp-002_summary.csv' using 5:(strcol(1) eq 'dvp_like/N100_uneven/a5' ? $13 : NaN) with lines lc rgb '#000000' lw 2 title 'DVP-like M-ADMM (q1=1)', \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'pp/N100_uneven/a5' ? $13 : NaN) with lines lc rgb '#0000dd' lw 2 title 'PP (q1=1.03, q2=1)', \
  'pp-002_summary.csv' using 5:(strcol(1) eq 'pp_q2/N100_uneven/a5' ? $13 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'PP (q1=q2=1.03)'
unset multiplot
