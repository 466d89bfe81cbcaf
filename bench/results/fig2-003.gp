# fig2-003: written by dpadmm_repro; run from this directory with `gnuplot fig2-003.gp`
set terminal png noenhanced size 900,600 font 'DejaVu Sans,9'
set output 'fig2-003.png'
set datafile separator ','
set key top right font ',8'
set grid
set title '003 Fig. 2 on Adult: test error of non-private ADMM after 50 iterations against rho (C = 1750, N = 5, 7 edges)'
set logscale x
set xlabel 'rho'
set ylabel 'test error E'
set key top left
plot 'fig2-003_final.csv' using 1:2 with linespoints lc rgb '#000000' lw 2 pt 7 title 'ADMM eta = 1', \
  '' using 1:3 with linespoints lc rgb '#0000dd' lw 2 pt 5 title 'ADMM eta = 0.1', \
  '' using 1:4 with linespoints lc rgb '#00aa00' dt 2 pt 6 title 'centralized optimum f*_rho'
