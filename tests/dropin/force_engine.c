/* force_engine.c — linked into test_blas_dropin_engine only: tests/dropin/layer.c then forces every
 * Level-3 call of the drop-in library through the thunk engine. */
extern const int tl_dropin_engine;
const int tl_dropin_engine = 1;
