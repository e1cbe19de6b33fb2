/* force_engine.c — linked into test_fftw_engine only: tests/fftw/test_fftw.c then forces every
 * transform cuFFT's layouts express through the thunk engine (CUFORT_FFTW_FORCE_GPU=1). */
extern const int test_fftw_engine;
const int test_fftw_engine = 1;
