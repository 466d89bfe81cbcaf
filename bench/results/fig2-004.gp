# fig2-004: written by dpadmm_repro; run from this directory with `gnuplot fig2-004.gp`
set terminal png noenhanced size 1400,600 font 'DejaVu Sans,9'
set output 'fig2-004.png'
set datafile separator ','
set key top right font ',8'
set grid
set multiplot layout 1,2 title '004 Fig. 2 on Adult: DVP, C-bar(t) = C L(t) at several alpha, rho = 10^-2.5 per node, C = 1750, N = 5; mean of 5 runs'
set xlabel 'iteration t'
set ylabel 'C-bar(t) = C L(t)'
set logscale y
set key top right
set title 'eta = 1'
plot 'fig2-004_summary.csv' using 5:(strcol(1) eq 'admm_eta1/N5_even/a0' ? 1750 * $7 : NaN) with lines lc rgb '#00aa00' lw 3 title 'non-private', \
  '' using 5:(strcol(1) eq 'dvp_eta1/N5_even/a0.05' ? 1750 * $7 : NaN) with lines lc rgb '#dd0000' lw 2 title 'alpha = 0.05', \
  '' using 5:(strcol(1) eq 'dvp_eta1/N5_even/a0.1' ? 1750 * $7 : NaN) with lines lc rgb '#ff8800' lw 2 title 'alpha = 0.1', \
  '' using 5:(strcol(1) eq 'dvp_eta1/N5_even/a0.2' ? 1750 * $7 : NaN) with lines lc rgb '#00aaaa' lw 2 title 'alpha = 0.2', \
  '' using 5:(strcol(1) eq 'dvp_eta1/N5_even/a0.3' ? 1750 * $7 : NaN) with lines lc rgb '#0000dd' lw 2 title 'alpha = 0.3', \
  '' using 5:(strcol(1) eq 'dvp_eta1/N5_even/a0.5' ? 1750 * $7 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'alpha = 0.5', \
  '' using 5:(strcol(1) eq 'dvp_eta1/N5_even/a1' ? 1750 * $7 : NaN) with lines lc rgb '#888888' lw 2 title 'alpha = 1', \
  '' using 5:(strcol(1) eq 'dvp_eta1/N5_even/a2' ? 1750 * $7 : NaN) with lines lc rgb '#dd0000' lw 2 title 'alpha = 2', \
  '' using 5:(strcol(1) eq 'dvp_eta1/N5_even/a5' ? 1750 * $7 : NaN) with lines lc rgb '#ff8800' lw 2 title 'alpha = 5'
set title 'eta = 10'
plot 'fig2-004_summary.csv' using 5:(strcol(1) eq 'admm_eta10/N5_even/a0' ? 1750 * $7 : NaN) with lines lc rgb '#00aa00' lw 3 title 'non-private', \
  '' using 5:(strcol(1) eq 'dvp_eta10/N5_even/a0.05' ? 1750 * $7 : NaN) with lines lc rgb '#dd0000' lw 2 title 'alpha = 0.05', \
  '' using 5:(strcol(1) eq 'dvp_eta10/N5_even/a0.1' ? 1750 * $7 : NaN) with lines lc rgb '#ff8800' lw 2 title 'alpha = 0.1', \
  '' using 5:(strcol(1) eq 'dvp_eta10/N5_even/a0.2' ? 1750 * $7 : NaN) with lines lc rgb '#00aaaa' lw 2 title 'alpha = 0.2', \
  '' using 5:(strcol(1) eq 'dvp_eta10/N5_even/a0.3' ? 1750 * $7 : NaN) with lines lc rgb '#0000dd' lw 2 title 'alpha = 0.3', \
  '' using 5:(strcol(1) eq 'dvp_eta10/N5_even/a0.5' ? 1750 * $7 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'alpha = 0.5', \
  '' using 5:(strcol(1) eq 'dvp_eta10/N5_even/a1' ? 1750 * $7 : NaN) with lines lc rgb '#888888' lw 2 title 'alpha = 1', \
  '' using 5:(strcol(1) eq 'dvp_eta10/N5_even/a2' ? 1750 * $7 : NaN) with lines lc rgb '#dd0000' lw 2 title 'alpha = 2', \
  '' using 5:(strcol(1) eq 'dvp_eta10/N5_even/a5' ? 1750 * $7 : NaN) with lines lc rgb '#ff8800' lw 2 title 'alpha = 5'
unset multiplot
