// CPU demo operator demo_fa: a tiled flash attention in plain C++17, built with g++.
// Not PTO code: no PTO headers, the "tiles" are ordinary arrays. It is shaped like the NPU
// kernel so pto-tui tunes it the same way: constexpr tile constants here, the per-case tiles
// (CUBE_S0 query rows x TILE_S1 keys) as template parameters of LaunchTFA, set by the case
// string HEAD_SIZE,S0,S1,CUBE_S0[,TILE_S1].
#pragma once

// Head-dim columns folded into one pass over a row of scores in Q*K^T. 1 loads and stores
// every score once per column; larger values keep partial sums in registers for
// kFaHeadUnroll columns, so fewer passes. Any value >= 1 is correct.
constexpr int kFaHeadUnroll = 4;

// Depth of the cube->vector FIFO in the NPU kernel. The CPU code runs its stages in order and
// does not use it; it is kept so the constants match the real kernel's (a FIFO size change is
// one of the high-risk edits of docs/workflow.md §11.4).
constexpr int kFaCvFifoSize = 4;

// o[S0][HEAD] = softmax(q k^T / sqrt(HEAD)) v with q[S0][HEAD], k[S1][HEAD], v[S1][HEAD], all
// row-major float32. Blocks of CUBE_S0 query rows walk the keys TILE_S1 at a time with an
// online softmax. Instantiated for the cases of generated_cases.inc (see fa_kernel.cpp).
template <int S0, int HEAD, int S1, int CUBE_S0, int TILE_S1>
void LaunchTFA(const float* q, const float* k, const float* v, float* o);
