# fig3-000_bias: written by dpadmm_repro_pdml; run here with `gnuplot fig3-000_bias.gp`
set terminal png noenhanced size 1200,450 font 'DejaVu Sans,9'
set output 'fig3-000_bias.png'
set datafile separator ','
set grid
set key top right font ',8'
set multiplot layout 1,2
set xlabel 'iteration'
set ylabel 'max_{i,j} ||w_i - w_j||'
set logscale y
set title '(a) consensus'
plot 'fig3-000_bias.csv' using 2:(int($1) == 0 ? $5 : NaN) with lines lw 2 title 'non-private ADMM, original data (reference)', 'fig3-000_bias.csv' using 2:(int($1) == 1 ? $5 : NaN) with lines lw 2 title 'PDML without Phase 2 perturbation (eps=1, R=0, V=0)', 'fig3-000_bias.csv' using 2:(int($1) == 2 ? $5 : NaN) with lines lw 2 title 'PDML with Phase 2 (eps=1, R=1, V=0.5, decay 0.8)'
unset logscale y
set ylabel 'empirical risk J (eq. (1), true labels)'
set title '(b) empirical risk'
set yrange [*:*]
plot 'fig3-000_bias.csv' using 2:(int($1) == 1 ? $3 : NaN) with lines lw 2 title 'PDML without Phase 2 perturbation (eps=1, R=0, V=0)', 'fig3-000_bias.csv' using 2:(int($1) == 2 ? $3 : NaN) with lines lw 2 title 'PDML with Phase 2 (eps=1, R=1, V=0.5, decay 0.8)', 3.43156 with lines dt 2 lw 2 lc rgb '#00aa00' title 'reference (final risk of non-private ADMM)'
unset multiplot
