# fig5eta-003: written by dpadmm_repro; run from this directory with `gnuplot fig5eta-003.gp`
set terminal png noenhanced size 1300,1000 font 'DejaVu Sans,9'
set output 'fig5eta-003.png'
set datafile separator ','
set key top right font ',8'
set grid
set multiplot layout 2,2 title '003 Fig. 5 with larger penalties for all: N = 5, rho = 0.22, C = 1750, gamma = 0.5; equal total bound; mean of 10 runs, bars = min..max every 10 rounds'
set logscale y
set yrange [0.33:2]
set ytics (0.35, 0.4, 0.5, 0.7, 1, 1.5, 2)
set xlabel 'iteration t'
set ylabel 'L(t) (average training loss)'
set title 'alpha = 1'
plot 'fig5eta-003_summary.csv' using 5:(strcol(1) eq 'admm/N5_even/a0' ? $7 : NaN) with lines lc rgb '#00aa00' lw 2 title 'ADMM non-private (eta=1)', \
  'fig5eta-003_summary.csv' using 5:(strcol(1) eq 'mradmm_eta1/N5_even/a1' ? $7 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'MR-ADMM eta=1.04^k (003)', '' using 5:(strcol(1) eq 'mradmm_eta1/N5_even/a1' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#cc00cc' pt 0 notitle, \
  'fig5eta-003_summary.csv' using 5:(strcol(1) eq 'mradmm_eta3/N5_even/a1' ? $7 : NaN) with lines lc rgb '#ff66ff' lw 2 title 'MR-ADMM eta=3*1.04^k', '' using 5:(strcol(1) eq 'mradmm_eta3/N5_even/a1' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#ff66ff' pt 0 notitle, \
  'fig5eta-003_summary.csv' using 5:(strcol(1) eq 'mradmm_eta10/N5_even/a1' ? $7 : NaN) with lines lc rgb '#660066' lw 2 title 'MR-ADMM eta=10*1.04^k', '' using 5:(strcol(1) eq 'mradmm_eta10/N5_even/a1' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#660066' pt 0 notitle, \
  'fig5eta-003_summary.csv' using 5:(strcol(1) eq 'radmm_eta10/N5_even/a1' ? $7 : NaN) with lines lc rgb '#dd0000' lw 2 title 'R-ADMM eta=10', '' using 5:(strcol(1) eq 'radmm_eta10/N5_even/a1' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#dd0000' pt 0 notitle, \
  'fig5eta-003_summary.csv' using 5:(strcol(1) eq 'dvp_eta3/N5_even/a1' ? $7 : NaN) with lines lc rgb '#444444' lw 2 title 'ADMM-DVP eta=3', '' using 5:(strcol(1) eq 'dvp_eta3/N5_even/a1' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#444444' pt 0 notitle, \
  'fig5eta-003_summary.csv' using 5:(strcol(1) eq 'dvp_eta10/N5_even/a1' ? $7 : NaN) with lines lc rgb '#888888' lw 2 title 'ADMM-DVP eta=10', '' using 5:(strcol(1) eq 'dvp_eta10/N5_even/a1' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#888888' pt 0 notitle
set logscale y
set yrange [0.33:2]
set ytics (0.35, 0.4, 0.5, 0.7, 1, 1.5, 2)
set xlabel 'iteration t'
set ylabel 'L(t) (average training loss)'
set title 'alpha = 0.5'
plot 'fig5eta-003_summary.csv' using 5:(strcol(1) eq 'admm/N5_even/a0' ? $7 : NaN) with lines lc rgb '#00aa00' lw 2 title 'ADMM non-private (eta=1)', \
  'fig5eta-003_summary.csv' using 5:(strcol(1) eq 'mradmm_eta1/N5_even/a0.5' ? $7 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'MR-ADMM eta=1.04^k (003)', '' using 5:(strcol(1) eq 'mradmm_eta1/N5_even/a0.5' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#cc00cc' pt 0 notitle, \
  'fig5eta-003_summary.csv' using 5:(strcol(1) eq 'mradmm_eta3/N5_even/a0.5' ? $7 : NaN) with lines lc rgb '#ff66ff' lw 2 title 'MR-ADMM eta=3*1.04^k', '' using 5:(strcol(1) eq 'mradmm_eta3/N5_even/a0.5' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#ff66ff' pt 0 notitle, \
  'fig5eta-003_summary.csv' using 5:(strcol(1) eq 'mradmm_eta10/N5_even/a0.5' ? $7 : NaN) with lines lc rgb '#660066' lw 2 title 'MR-ADMM eta=10*1.04^k', '' using 5:(strcol(1) eq 'mradmm_eta10/N5_even/a0.5' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#660066' pt 0 notitle, \
  'fig5eta-003_summary.csv' using 5:(strcol(1) eq 'radmm_eta10/N5_even/a0.5' ? $7 : NaN) with lines lc rgb '#dd0000' lw 2 title 'R-ADMM eta=10', '' using 5:(strcol(1) eq 'radmm_eta10/N5_even/a0.5' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#dd0000' pt 0 notitle, \
  'fig5eta-003_summary.csv' using 5:(strcol(1) eq 'dvp_eta3/N5_even/a0.5' ? $7 : NaN) with lines lc rgb '#444444' lw 2 title 'ADMM-DVP eta=3', '' using 5:(strcol(1) eq 'dvp_eta3/N5_even/a0.5' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#444444' pt 0 notitle, \
  'fig5eta-003_summary.csv' using 5:(strcol(1) eq 'dvp_eta10/N5_even/a0.5' ? $7 : NaN) with lines lc rgb '#888888' lw 2 title 'ADMM-DVP eta=10', '' using 5:(strcol(1) eq 'dvp_eta10/N5_even/a0.5' && int($5) % 10 == 0 ? $7 : NaN):8:9 with yerrorbars lc rgb '#888888' pt 0 notitle
unset logscale y
set yrange [0.15:0.3]
set ytics autofreq
set xlabel 'iteration t'
set ylabel 'test error E(t)'
set title 'alpha = 1'
plot 'fig5eta-003_summary.csv' using 5:(strcol(1) eq 'admm/N5_even/a0' ? $10 : NaN) with lines lc rgb '#00aa00' lw 2 title 'ADMM non-private (eta=1)', \
  'fig5eta-003_summary.csv' using 5:(strcol(1) eq 'mradmm_eta1/N5_even/a1' ? $10 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'MR-ADMM eta=1.04^k (003)', '' using 5:(strcol(1) eq 'mradmm_eta1/N5_even/a1' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#cc00cc' pt 0 notitle, \
  'fig5eta-003_summary.csv' using 5:(strcol(1) eq 'mradmm_eta3/N5_even/a1' ? $10 : NaN) with lines lc rgb '#ff66ff' lw 2 title 'MR-ADMM eta=3*1.04^k', '' using 5:(strcol(1) eq 'mradmm_eta3/N5_even/a1' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#ff66ff' pt 0 notitle, \
  'fig5eta-003_summary.csv' using 5:(strcol(1) eq 'mradmm_eta10/N5_even/a1' ? $10 : NaN) with lines lc rgb '#660066' lw 2 title 'MR-ADMM eta=10*1.04^k', '' using 5:(strcol(1) eq 'mradmm_eta10/N5_even/a1' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#660066' pt 0 notitle, \
  'fig5eta-003_summary.csv' using 5:(strcol(1) eq 'radmm_eta10/N5_even/a1' ? $10 : NaN) with lines lc rgb '#dd0000' lw 2 title 'R-ADMM eta=10', '' using 5:(strcol(1) eq 'radmm_eta10/N5_even/a1' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#dd0000' pt 0 notitle, \
  'fig5eta-003_summary.csv' using 5:(strcol(1) eq 'dvp_eta3/N5_even/a1' ? $10 : NaN) with lines lc rgb '#444444' lw 2 title 'ADMM-DVP eta=3', '' using 5:(strcol(1) eq 'dvp_eta3/N5_even/a1' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#444444' pt 0 notitle, \
  'fig5eta-003_summary.csv' using 5:(strcol(1) eq 'dvp_eta10/N5_even/a1' ? $10 : NaN) with lines lc rgb '#888888' lw 2 title 'ADMM-DVP eta=10', '' using 5:(strcol(1) eq 'dvp_eta10/N5_even/a1' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#888888' pt 0 notitle
unset logscale y
set yrange [0.15:0.3]
set ytics autofreq
set xlabel 'iteration t'
set ylabel 'test error E(t)'
set title 'alpha = 0.5'
plot 'fig5eta-003_summary.csv' using 5:(strcol(1) eq 'admm/N5_even/a0' ? $10 : NaN) with lines lc rgb '#00aa00' lw 2 title 'ADMM non-private (eta=1)', \
  'fig5eta-003_summary.csv' using 5:(strcol(1) eq 'mradmm_eta1/N5_even/a0.5' ? $10 : NaN) with lines lc rgb '#cc00cc' lw 2 title 'MR-ADMM eta=1.04^k (003)', '' using 5:(strcol(1) eq 'mradmm_eta1/N5_even/a0.5' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#cc00cc' pt 0 notitle, \
  'fig5eta-003_summary.csv' using 5:(strcol(1) eq 'mradmm_eta3/N5_even/a0.5' ? $10 : NaN) with lines lc rgb '#ff66ff' lw 2 title 'MR-ADMM eta=3*1.04^k', '' using 5:(strcol(1) eq 'mradmm_eta3/N5_even/a0.5' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#ff66ff' pt 0 notitle, \
  'fig5eta-003_summary.csv' using 5:(strcol(1) eq 'mradmm_eta10/N5_even/a0.5' ? $10 : NaN) with lines lc rgb '#660066' lw 2 title 'MR-ADMM eta=10*1.04^k', '' using 5:(strcol(1) eq 'mradmm_eta10/N5_even/a0.5' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#660066' pt 0 notitle, \
  'fig5eta-003_summary.csv' using 5:(strcol(1) eq 'radmm_eta10/N5_even/a0.5' ? $10 : NaN) with lines lc rgb '#dd0000' lw 2 title 'R-ADMM eta=10', '' using 5:(strcol(1) eq 'radmm_eta10/N5_even/a0.5' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#dd0000' pt 0 notitle, \
  'fig5eta-003_summary.csv' using 5:(strcol(1) eq 'dvp_eta3/N5_even/a0.5' ? $10 : NaN) with lines lc rgb '#444444' lw 2 title 'ADMM-DVP eta=3', '' using 5:(strcol(1) eq 'dvp_eta3/N5_even/a0.5' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#444444' pt 0 notitle, \
  'fig5eta-003_summary.csv' using 5:(strcol(1) eq 'dvp_eta10/N5_even/a0.5' ? $10 : NaN) with lines lc rgb '#888888' lw 2 title 'ADMM-DVP eta=10', '' using 5:(strcol(1) eq 'dvp_eta10/N5_even/a0.5' && int($5) % 10 == 0 ? $10 : NaN):11:12 with yerrorbars lc rgb '#888888' pt 0 notitle
unset multiplot
