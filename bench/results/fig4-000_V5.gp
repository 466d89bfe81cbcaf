# fig4-000_V5: written by dpadmm_repro_pdml; run here with `gnuplot fig4-000_V5.gp`
set terminal png noenhanced size 1500,450 font 'DejaVu Sans,9'
set output 'fig4-000_V5.png'
set datafile separator ','
set grid
set key top right font ',8'
set multiplot layout 1,3
set xlabel 'iteration'
set ylabel 'empirical risk J (true labels)'
set title '(a) different R (decay 0.8)'
plot 'fig4-000_V5a.csv' using 2:(int($1) == 1 ? $3 : NaN) with lines lw 2 title 'R=0', 'fig4-000_V5a.csv' using 2:(int($1) == 2 ? $3 : NaN) with lines lw 2 title 'R=1', 'fig4-000_V5a.csv' using 2:(int($1) == 3 ? $3 : NaN) with lines lw 2 title 'R=3', 'fig4-000_V5a.csv' using 2:(int($1) == 4 ? $3 : NaN) with lines lw 2 title 'R=5', 'fig4-000_V5a.csv' using 2:(int($1) == 5 ? $3 : NaN) with lines lw 2 title 'R=9', 3.42948 with lines dt 2 lw 2 lc rgb '#00aa00' title 'original data'
set title '(b) different decay rates (R = 1)'
plot 'fig4-000_V5b.csv' using 2:(int($1) == 0 ? $3 : NaN) with lines lw 2 title 'decay=0.5', 'fig4-000_V5b.csv' using 2:(int($1) == 1 ? $3 : NaN) with lines lw 2 title 'decay=0.8', 'fig4-000_V5b.csv' using 2:(int($1) == 2 ? $3 : NaN) with lines lw 2 title 'decay=0.9', 'fig4-000_V5b.csv' using 2:(int($1) == 3 ? $3 : NaN) with lines lw 2 title 'decay=0.95', 3.42948 with lines dt 2 lw 2 lc rgb '#00aa00' title 'original data'
set title '(c) different eps (final risk)'
set xlabel 'eps'
set logscale y
plot 'fig4-000_V5c.csv' using 1:2 every ::1 with linespoints lw 2 pt 7 title 'without Phase 2', '' using 1:3 every ::1 with linespoints lw 2 pt 5 title 'with Phase 2 (R = 1)', '' using 1:6 every ::1 with lines dt 2 lw 2 lc rgb '#00aa00' title 'original data'
unset multiplot
