"""Side-by-side benchmarks: surefoot and the libraries it is compared with, in one run."""
