# fig3-004: written by dpadmm_repro; run from this directory with `gnuplot fig3-004.gp`
set terminal png noenhanced size 1400,560 font 'DejaVu Sans,9'
set output 'fig3-004.png'
set datafile separator ','
set key top right font ',8'
set grid
set multiplot layout 1,2 title '004 Fig. 3(c,d) on Adult: DVP, N = 5 (7 edges), rho = 10^-2.5 per node, C = 1750, T = 100; mean of 10 runs, bars = min..max; thin lines = non-private ADMM'
set logscale x
set xrange [0.035:7]
set xlabel 'alpha (per iteration)'
set key top right
set title '(c) empirical risk L(T) (average training loss)'
set ylabel '(c) empirical risk L(T) (average training loss)'
set logscale y
set yrange [0.3:30]
plot 'fig3-004_final.csv' using 2:(strcol(1) eq 'dvp_eta0.1' ? $3 : NaN):4:5 with yerrorlines lc rgb '#dd0000' lw 2 pt 7 title 'DVP eta=0.1', \
  '' using 2:(strcol(1) eq 'admm_eta0.1' ? $3 : NaN) with lines lc rgb '#dd0000' lw 1 title 'ADMM eta=0.1', \
  'fig3-004_final.csv' using 2:(strcol(1) eq 'dvp_eta1' ? $3 : NaN):4:5 with yerrorlines lc rgb '#000000' lw 2 pt 7 title 'DVP eta=1', \
  '' using 2:(strcol(1) eq 'admm_eta1' ? $3 : NaN) with lines lc rgb '#000000' lw 1 title 'ADMM eta=1', \
  'fig3-004_final.csv' using 2:(strcol(1) eq 'dvp_eta10' ? $3 : NaN):4:5 with yerrorlines lc rgb '#0000dd' lw 2 pt 7 title 'DVP eta=10', \
  '' using 2:(strcol(1) eq 'admm_eta10' ? $3 : NaN) with lines lc rgb '#0000dd' lw 1 title 'ADMM eta=10'
set title '(d) misclassification rate E(T)'
set ylabel '(d) misclassification rate E(T)'
unset logscale y
set yrange [0.14:0.5]
plot 'fig3-004_final.csv' using 2:(strcol(1) eq 'dvp_eta0.1' ? $6 : NaN):7:8 with yerrorlines lc rgb '#dd0000' lw 2 pt 7 title 'DVP eta=0.1', \
  '' using 2:(strcol(1) eq 'admm_eta0.1' ? $6 : NaN) with lines lc rgb '#dd0000' lw 1 title 'ADMM eta=0.1', \
  'fig3-004_final.csv' using 2:(strcol(1) eq 'dvp_eta1' ? $6 : NaN):7:8 with yerrorlines lc rgb '#000000' lw 2 pt 7 title 'DVP eta=1', \
  '' using 2:(strcol(1) eq 'admm_eta1' ? $6 : NaN) with lines lc rgb '#000000' lw 1 title 'ADMM eta=1', \
  'fig3-004_final.csv' using 2:(strcol(1) eq 'dvp_eta10' ? $6 : NaN):7:8 with yerrorlines lc rgb '#0000dd' lw 2 pt 7 title 'DVP eta=10', \
  '' using 2:(strcol(1) eq 'admm_eta10' ? $6 : NaN) with lines lc rgb '#0000dd' lw 1 title 'ADMM eta=10'
unset multiplot
