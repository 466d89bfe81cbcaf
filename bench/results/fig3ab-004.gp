# fig3ab-004: written by dpadmm_repro; run from this directory with `gnuplot fig3ab-004.gp`
set terminal png noenhanced size 1400,600 font 'DejaVu Sans,9'
set output 'fig3ab-004.png'
set datafile separator ','
set key top right font ',8'
set grid
set multiplot layout 1,2 title '004 Fig. 3(a,b) on Adult: DVP, C-bar(t) against alpha at fixed t (points: mean, bars: min..max of 5 runs; lines: fitted c4 exp(-c5 alpha) + c6)'
set logscale x
set logscale y
set xlabel 'alpha (per iteration)'
set ylabel 'C-bar(t) = C L(t)'
set key top right
set samples 400
set title 'eta = 1'
plot 'fig3ab-004.csv' using 3:($1 == 1 && $2 == 1 ? $4 : NaN):5:6 with yerrorbars lc rgb '#dd0000' pt 7 title 't = 1', \
  '' using 3:($1 == 1 && $2 == 1 ? $8 * exp(-$9 * $3) + $7 : NaN) smooth csplines lc rgb '#dd0000' lw 1 notitle, \
  'fig3ab-004.csv' using 3:($1 == 1 && $2 == 10 ? $4 : NaN):5:6 with yerrorbars lc rgb '#ff8800' pt 7 title 't = 10', \
  '' using 3:($1 == 1 && $2 == 10 ? $8 * exp(-$9 * $3) + $7 : NaN) smooth csplines lc rgb '#ff8800' lw 1 notitle, \
  'fig3ab-004.csv' using 3:($1 == 1 && $2 == 20 ? $4 : NaN):5:6 with yerrorbars lc rgb '#00aaaa' pt 7 title 't = 20', \
  '' using 3:($1 == 1 && $2 == 20 ? $8 * exp(-$9 * $3) + $7 : NaN) smooth csplines lc rgb '#00aaaa' lw 1 notitle, \
  'fig3ab-004.csv' using 3:($1 == 1 && $2 == 50 ? $4 : NaN):5:6 with yerrorbars lc rgb '#0000dd' pt 7 title 't = 50', \
  '' using 3:($1 == 1 && $2 == 50 ? $8 * exp(-$9 * $3) + $7 : NaN) smooth csplines lc rgb '#0000dd' lw 1 notitle, \
  'fig3ab-004.csv' using 3:($1 == 1 && $2 == 100 ? $4 : NaN):5:6 with yerrorbars lc rgb '#cc00cc' pt 7 title 't = 100', \
  '' using 3:($1 == 1 && $2 == 100 ? $8 * exp(-$9 * $3) + $7 : NaN) smooth csplines lc rgb '#cc00cc' lw 1 notitle
set title 'eta = 10'
plot 'fig3ab-004.csv' using 3:($1 == 10 && $2 == 1 ? $4 : NaN):5:6 with yerrorbars lc rgb '#dd0000' pt 7 title 't = 1', \
  '' using 3:($1 == 10 && $2 == 1 ? $8 * exp(-$9 * $3) + $7 : NaN) smooth csplines lc rgb '#dd0000' lw 1 notitle, \
  'fig3ab-004.csv' using 3:($1 == 10 && $2 == 10 ? $4 : NaN):5:6 with yerrorbars lc rgb '#ff8800' pt 7 title 't = 10', \
  '' using 3:($1 == 10 && $2 == 10 ? $8 * exp(-$9 * $3) + $7 : NaN) smooth csplines lc rgb '#ff8800' lw 1 notitle, \
  'fig3ab-004.csv' using 3:($1 == 10 && $2 == 20 ? $4 : NaN):5:6 with yerrorbars lc rgb '#00aaaa' pt 7 title 't = 20', \
  '' using 3:($1 == 10 && $2 == 20 ? $8 * exp(-$9 * $3) + $7 : NaN) smooth csplines lc rgb '#00aaaa' lw 1 notitle, \
  'fig3ab-004.csv' using 3:($1 == 10 && $2 == 50 ? $4 : NaN):5:6 with yerrorbars lc rgb '#0000dd' pt 7 title 't = 50', \
  '' using 3:($1 == 10 && $2 == 50 ? $8 * exp(-$9 * $3) + $7 : NaN) smooth csplines lc rgb '#0000dd' lw 1 notitle, \
  'fig3ab-004.csv' using 3:($1 == 10 && $2 == 100 ? $4 : NaN):5:6 with yerrorbars lc rgb '#cc00cc' pt 7 title 't = 100', \
  '' using 3:($1 == 10 && $2 == 100 ? $8 * exp(-$9 * $3) + $7 : NaN) smooth csplines lc rgb '#cc00cc' lw 1 notitle
unset multiplot
