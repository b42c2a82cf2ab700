// CPU demo operator demo_fa: the test/benchmark driver, shaped like a PTO-tile-lib
// fa_performance binary. Not PTO code; runs on the CPU.
//
//   ./fa_performance --npu=0 --cases "64,256,1024,64,256;128,128,1024,128" [--repeat 5] [--warmup 1]
//
// Per requested case that was compiled in (generated_cases.inc): load data/<case>/{q,k,v,golden}.bin,
// warm up, time --repeat runs, compare with the golden output, print `max diff: <x>`, then
// `test success` or `test failed`, then `[SUMMARY] o_out status: OK|FAIL`, and append a row to
// ./report.csv (header written only when the file is new). As with the real binary the exit
// code is 0 even when a test fails; it is 1 only when no requested case was compiled in.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fa_kernel.h"

namespace {

constexpr int kCubeS1 = 128;           // fixed key granule of the NPU kernel; S1 is a multiple of it
constexpr int kDefaultTileS1 = 256;    // TILE_S1 when a case string gives four values
constexpr double kMaxDiffThreshold = 1e-3;
const char* const kCsvHeader =
    "case,HEAD,S0,S1,CUBE_S0,CUBE_S1,TILE_S1,start_time,end_time,duration_us,avg_block_us,GOPS,TFLOPS,result";

using LaunchFn = void (*)(const float*, const float*, const float*, float*);

struct CaseEntry {
  int head, s0, s1, cube_s0, tile_s1;
  LaunchFn launch;
};

#define FA_CASE(HEAD, S0, S1, CUBE_S0, TILE_S1) \
  CaseEntry{HEAD, S0, S1, CUBE_S0, TILE_S1, &LaunchTFA<S0, HEAD, S1, CUBE_S0, TILE_S1>},
const CaseEntry kCompiledCases[] = {
#include "generated_cases.inc"
};
#undef FA_CASE

const auto kProgramStart = std::chrono::steady_clock::now();

long long ThreadCpuUs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

long long NowUs() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - kProgramStart)
      .count();
}

std::string CaseName(const CaseEntry& c) {
  return "case_float_H_" + std::to_string(c.head) + "_S0_" + std::to_string(c.s0) + "_S1_" + std::to_string(c.s1);
}

std::vector<std::string> Split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, sep)) parts.push_back(item);
  if (!text.empty() && text.back() == sep) parts.emplace_back();
  return parts;
}

// "HEAD,S0,S1,CUBE_S0[,TILE_S1]" -> five values; false when malformed.
bool ParseCase(const std::string& text, int out[5]) {
  std::vector<std::string> parts = Split(text, ',');
  if (parts.size() != 4 && parts.size() != 5) return false;
  out[4] = kDefaultTileS1;
  for (size_t i = 0; i < parts.size(); ++i) {
    const char* begin = parts[i].c_str();
    char* end = nullptr;
    long value = std::strtol(begin, &end, 10);
    while (*end == ' ') ++end;
    if (end == begin || *end != '\0' || value < 1 || value > 1 << 20) return false;
    out[i] = static_cast<int>(value);
  }
  return true;
}

bool ReadFloats(const std::string& path, std::vector<float>& data, size_t count) {
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file || static_cast<size_t>(file.tellg()) != count * sizeof(float)) return false;
  data.resize(count);
  file.seekg(0);
  return static_cast<bool>(file.read(reinterpret_cast<char*>(data.data()), count * sizeof(float)));
}

bool FileIsEmptyOrMissing(const std::string& path) {
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  return !file || file.tellg() <= 0;
}

void PrintSummary(bool ok) {
  std::printf("%s\n", ok ? "test success" : "test failed");
  std::printf("[SUMMARY] o_out status: %s\n", ok ? "OK" : "FAIL");
}

void RunCase(const CaseEntry& c, int warmup, int repeat) {
  const std::string name = CaseName(c);
  std::printf("[INFO] %s (H=%d, S0=%d, S1=%d, CUBE_S0=%d, CUBE_S1=%d, TILE_S1=%d, CAUSAL_MASK=%d) on the CPU\n",
              name.c_str(), c.head, c.s0, c.s1, c.cube_s0, kCubeS1, c.tile_s1, FA_CAUSAL_MASK);
  const size_t q_count = static_cast<size_t>(c.s0) * c.head;
  const size_t kv_count = static_cast<size_t>(c.s1) * c.head;
  std::vector<float> q, k, v, golden;
  const std::string dir = "data/" + name + "/";
  const struct {
    const char* file;
    std::vector<float>* data;
    size_t count;
  } inputs[] = {{"q.bin", &q, q_count}, {"k.bin", &k, kv_count}, {"v.bin", &v, kv_count}, {"golden.bin", &golden, q_count}};
  for (const auto& input : inputs) {
    if (!ReadFloats(dir + input.file, *input.data, input.count)) {
      std::printf("[ERROR] cannot read %s%s (%zu float32 values expected): run gen_data.py for this case first\n",
                  dir.c_str(), input.file, input.count);
      PrintSummary(false);
      return;
    }
  }

  std::vector<float> out(q_count, 0.0f);
  for (int i = 0; i < warmup; ++i) c.launch(q.data(), k.data(), v.data(), out.data());
  // Each run timed on this thread's CPU clock (like device time on an NPU it ignores other
  // load on the machine); the median run is reported, robust to the odd preempted run.
  const long long start = NowUs();
  std::vector<long long> runs_us;
  for (int i = 0; i < repeat; ++i) {
    const long long run_start = ThreadCpuUs();
    c.launch(q.data(), k.data(), v.data(), out.data());
    runs_us.push_back(ThreadCpuUs() - run_start);
  }
  const long long end = NowUs();
  std::sort(runs_us.begin(), runs_us.end());
  const double median_us = repeat % 2 ? static_cast<double>(runs_us[repeat / 2])
                                      : 0.5 * static_cast<double>(runs_us[repeat / 2 - 1] + runs_us[repeat / 2]);

  double max_diff = 0.0;
  bool finite = true;
  for (size_t i = 0; i < q_count; ++i) {
    const double diff = std::fabs(static_cast<double>(out[i]) - golden[i]);
    if (!std::isfinite(diff)) finite = false;
    else if (diff > max_diff) max_diff = diff;
  }
  const bool ok = finite && max_diff <= kMaxDiffThreshold;
  if (finite) std::printf("max diff: %.9g\n", max_diff);
  else std::printf("max diff: nan\n");
  PrintSummary(ok);

  // One "block" on the CPU (a single thread), so avg_block_us equals duration_us. GOPS holds the
  // operation count in millions, as the real binary's column does (docs/formats.md §3).
  const double duration_us = median_us;
  const double flops = 4.0 * c.head * c.s0 * c.s1 / (FA_CAUSAL_MASK ? 2.0 : 1.0);
  const bool new_file = FileIsEmptyOrMissing("report.csv");
  std::ofstream csv("report.csv", std::ios::app);
  if (new_file) csv << kCsvHeader << "\n";
  char row[512];
  std::snprintf(row, sizeof row, "%s,%d,%d,%d,%d,%d,%d,%lld,%lld,%.3f,%.3f,%.6f,%s,%s\n", name.c_str(), c.head,
                c.s0, c.s1, c.cube_s0, kCubeS1, c.tile_s1, start, end, duration_us, duration_us, flops / 1e6,
                duration_us > 0 ? std::to_string(flops / duration_us / 1e6).c_str() : "NA", ok ? "OK" : "NOK");
  csv << row;
  if (!csv) std::printf("[ERROR] cannot append to report.csv\n");
  std::printf("[INFO] %s duration %.3f us per run (%d runs), %.6f TFLOPS\n", name.c_str(), duration_us, repeat,
              duration_us > 0 ? flops / duration_us / 1e6 : 0.0);
}

void Usage() {
  std::printf(
      "usage: fa_performance [--npu=N] --cases \"HEAD_SIZE,S0,S1,CUBE_S0[,TILE_S1][;...]\" "
      "[--repeat N] [--warmup N]\n"
      "CPU demo operator demo_fa (not PTO code). Without --cases every compiled case runs.\n");
}

// "--name=value" or "--name value"; advances i past a separate value.
bool OptionValue(int argc, char** argv, int& i, const std::string& name, std::string& value) {
  const std::string arg = argv[i];
  if (arg.rfind(name + "=", 0) == 0) {
    value = arg.substr(name.size() + 1);
    return true;
  }
  if (arg == name && i + 1 < argc) {
    value = argv[++i];
    return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // one flush per line: the log is streamed
  std::string cases_arg, npu = "0", value;
  bool filtered = false;
  int repeat = 5, warmup = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      Usage();
      return 0;
    } else if (OptionValue(argc, argv, i, "--cases", value) || OptionValue(argc, argv, i, "--case", value)) {
      cases_arg += (cases_arg.empty() ? "" : ";") + value;
      filtered = true;
    } else if (OptionValue(argc, argv, i, "--npu", value)) {
      npu = value;
    } else if (OptionValue(argc, argv, i, "--repeat", value)) {
      repeat = std::atoi(value.c_str());
    } else if (OptionValue(argc, argv, i, "--warmup", value)) {
      warmup = std::atoi(value.c_str());
    } else {
      std::printf("[ERROR] unknown argument '%s'\n", arg.c_str());
      Usage();
      return 2;
    }
  }
  if (repeat < 1 || warmup < 0) {
    std::printf("[ERROR] --repeat must be >= 1 and --warmup >= 0\n");
    return 2;
  }
  std::printf("CPU demo: --npu ignored (requested --npu=%s); demo_fa runs on the CPU, not an NPU\n", npu.c_str());

  std::vector<const CaseEntry*> selected;
  if (!filtered) {
    for (const CaseEntry& c : kCompiledCases) selected.push_back(&c);
  }
  for (const std::string& text : Split(cases_arg, ';')) {
    if (text.find_first_not_of(' ') == std::string::npos) continue;
    int want[5];
    if (!ParseCase(text, want)) {
      std::printf("[WARN] ignoring malformed case '%s' (expected HEAD_SIZE,S0,S1,CUBE_S0[,TILE_S1])\n", text.c_str());
      continue;
    }
    bool found = false;
    for (const CaseEntry& c : kCompiledCases) {
      if (c.head == want[0] && c.s0 == want[1] && c.s1 == want[2] && c.cube_s0 == want[3] && c.tile_s1 == want[4]) {
        selected.push_back(&c);
        found = true;
      }
    }
    if (!found) std::printf("[WARN] case '%s' was not compiled in (see generated_cases.inc)\n", text.c_str());
  }
  if (selected.empty()) {
    std::printf("[WARN] No cases matched filters; check --case/--cases values.\n");
    return 1;
  }
  for (const CaseEntry* c : selected) RunCase(*c, warmup, repeat);
  return 0;
}
