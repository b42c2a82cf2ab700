// CPU demo operator demo_fa: the tiled flash attention behind LaunchTFA. Not PTO code.
//
// Per block of CUBE_S0 query rows, per tile of TILE_S1 keys:
//   1. copy the K tile, transposed, into a local buffer (the CPU's stand-in for loading a tile
//      on chip): done again for every query block, so a small CUBE_S0 re-reads K more often;
//   2. scores = Q_block * K_tile^T, kFaHeadUnroll head-dim columns per pass;
//   3. online softmax: new running max per row, probabilities of the tile, running sum;
//   4. rescale the accumulator to the new max: one pass over it per tile, so a small TILE_S1
//      costs more passes;
//   5. accumulator += P * V_tile.
// The block's output is the accumulator divided by the running sum.
#include "fa_kernel.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

// First pass over the case list for its settings (FA_CAUSAL_MASK); the cases come at the end.
#define FA_CASE(HEAD, S0, S1, CUBE_S0, TILE_S1)
#include "generated_cases.inc"
#undef FA_CASE

namespace {

template <int HEAD, int TILE_S1>
void LoadKTileTransposed(const float* k_tile, float* kt) {
  for (int j = 0; j < TILE_S1; ++j) {
    for (int d = 0; d < HEAD; ++d) {
      kt[d * TILE_S1 + j] = k_tile[j * HEAD + d];
    }
  }
}

// scores[j] = sum_d q_row[d] * kt[d][j], kFaHeadUnroll columns of kt per pass over scores.
template <int HEAD, int TILE_S1>
void ScoreRow(const float* q_row, const float* kt, float* scores) {
  std::fill(scores, scores + TILE_S1, 0.0f);
  int d0 = 0;
  for (; d0 + kFaHeadUnroll <= HEAD; d0 += kFaHeadUnroll) {
    for (int j = 0; j < TILE_S1; ++j) {
      float sum = scores[j];
      for (int u = 0; u < kFaHeadUnroll; ++u) {
        sum += q_row[d0 + u] * kt[(d0 + u) * TILE_S1 + j];
      }
      scores[j] = sum;
    }
  }
  if constexpr (HEAD % kFaHeadUnroll != 0) {  // the head-dim remainder
    for (; d0 < HEAD; ++d0) {
      for (int j = 0; j < TILE_S1; ++j) {
        scores[j] += q_row[d0] * kt[d0 * TILE_S1 + j];
      }
    }
  }
}

// Scales everything accumulated under a row's old running max to its new one.
template <int CUBE_S0, int HEAD>
void RescaleAccumulator(float* acc, const float* correction) {
  for (int i = 0; i < CUBE_S0; ++i) {
    for (int d = 0; d < HEAD; ++d) {
      acc[i * HEAD + d] *= correction[i];
    }
  }
}

}  // namespace

template <int S0, int HEAD, int S1, int CUBE_S0, int TILE_S1>
void LaunchTFA(const float* q, const float* k, const float* v, float* o) {
  static_assert(S0 % CUBE_S0 == 0, "CUBE_S0 must divide S0");
  static_assert(S1 % TILE_S1 == 0, "TILE_S1 must divide S1");
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  const float scale = 1.0f / std::sqrt(static_cast<float>(HEAD));

  std::vector<float> kt(HEAD * TILE_S1);
  std::vector<float> scores(CUBE_S0 * TILE_S1);
  std::vector<float> acc(CUBE_S0 * HEAD);
  std::vector<float> row_max(CUBE_S0), row_sum(CUBE_S0), correction(CUBE_S0);

  for (int q0 = 0; q0 < S0; q0 += CUBE_S0) {
    std::fill(acc.begin(), acc.end(), 0.0f);
    std::fill(row_max.begin(), row_max.end(), kNegInf);
    std::fill(row_sum.begin(), row_sum.end(), 0.0f);
    // Causal (query i sees keys 0..i): tiles wholly after the block's last row are skipped.
    // Tile 0 holds key 0, so every running max is finite after the first tile.
    const int kv_end = FA_CAUSAL_MASK ? std::min(S1, q0 + CUBE_S0) : S1;

    for (int k0 = 0; k0 < kv_end; k0 += TILE_S1) {
      LoadKTileTransposed<HEAD, TILE_S1>(k + static_cast<long>(k0) * HEAD, kt.data());
      for (int i = 0; i < CUBE_S0; ++i) {
        float* s = scores.data() + i * TILE_S1;
        ScoreRow<HEAD, TILE_S1>(q + static_cast<long>(q0 + i) * HEAD, kt.data(), s);
        float tile_max = kNegInf;
        for (int j = 0; j < TILE_S1; ++j) {
          s[j] = (FA_CAUSAL_MASK && k0 + j > q0 + i) ? kNegInf : s[j] * scale;
          tile_max = std::max(tile_max, s[j]);
        }
        const float new_max = std::max(row_max[i], tile_max);
        float tile_sum = 0.0f;
        for (int j = 0; j < TILE_S1; ++j) {
          s[j] = std::exp(s[j] - new_max);
          tile_sum += s[j];
        }
        correction[i] = std::exp(row_max[i] - new_max);
        row_sum[i] = row_sum[i] * correction[i] + tile_sum;
        row_max[i] = new_max;
      }
      RescaleAccumulator<CUBE_S0, HEAD>(acc.data(), correction.data());
      for (int i = 0; i < CUBE_S0; ++i) {
        const float* p = scores.data() + i * TILE_S1;
        float* acc_row = acc.data() + i * HEAD;
        for (int j = 0; j < TILE_S1; ++j) {
          const float* v_row = v + static_cast<long>(k0 + j) * HEAD;
          for (int d = 0; d < HEAD; ++d) {
            acc_row[d] += p[j] * v_row[d];
          }
        }
      }
    }

    for (int i = 0; i < CUBE_S0; ++i) {
      for (int d = 0; d < HEAD; ++d) {
        o[static_cast<long>(q0 + i) * HEAD + d] = acc[i * HEAD + d] / row_sum[i];
      }
    }
  }
}

// Explicit instantiations: one per case of generated_cases.inc.
#define FA_CASE(HEAD, S0, S1, CUBE_S0, TILE_S1) \
  template void LaunchTFA<S0, HEAD, S1, CUBE_S0, TILE_S1>(const float*, const float*, const float*, float*);
#include "generated_cases.inc"
#undef FA_CASE
