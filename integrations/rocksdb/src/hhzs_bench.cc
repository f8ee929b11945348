// hhzs_bench — the driver: RocksDB 7.8 on `hhzs://<config>` with the plugin's
// EventListener installed (exact flush/compaction/trivial-move hints, which Debian's
// db_bench cannot attach from its flags), its SecondaryCache on the LRU block cache,
// and modes for the demonstrations and the crash test (docs/rocksdb.md).
//
//   hhzs_bench --config C.toml --db /path --mode fillrandom|readrandom|ycsb|crashwriter|verify|check
//              [--num N] [--ops N] [--value_size B] [--read_ratio R] [--zipf_theta T]
//              [--cache_mib M] [--start K] [--expect_last K] [--seed S] [--write_buffer_kib K]
//              [--seconds S]
#include <rocksdb/cache.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/options.h>
#include <rocksdb/secondary_cache.h>
#include <rocksdb/table.h>

#include <chrono>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>

#include "hhzs_plugin.h"

using namespace ROCKSDB_NAMESPACE;

namespace {

// Scaled-down LSM shape so that a few hundred MB of data make several levels:
// RocksDB's defaults (64 MiB memtable and SST, 256 MiB L1) divided by 32.
constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kWriteBufferBytes = 2 * kMiB;
constexpr uint64_t kTargetFileBytes = 2 * kMiB;
constexpr uint64_t kLevelBaseBytes = 8 * kMiB;
// Compaction input readahead, as the LSM model of docs/hhzs.md (2 MiB); RocksDB 7.8's
// default 0 reads an HDD-resident input one block at a time.
constexpr uint64_t kCompactionReadaheadBytes = 2 * kMiB;
constexpr int kKeyDigits = 16;  // db_bench's default key size (16 bytes)

struct Args {
  std::string config, db, mode;
  uint64_t num = 100000, ops = 0, value_size = 100, cache_mib = 8, start = 0, seed = 1;
  uint64_t write_buffer_kib = kWriteBufferBytes / 1024;
  uint64_t seconds = 0;  // readrandom/ycsb: stop after this many seconds (0: after --ops)
  int64_t expect_last = -1;
  double read_ratio = 0.5, zipf_theta = 0.99;
};

[[noreturn]] void Usage(const std::string& why) {
  std::fprintf(stderr,
               "hhzs_bench: %s\nusage: hhzs_bench --config C.toml --db DIR --mode "
               "fillrandom|readrandom|ycsb|crashwriter|verify|check [--num N] [--ops N] "
               "[--value_size B] [--read_ratio R] [--zipf_theta T] [--cache_mib M] "
               "[--start K] [--expect_last K] [--seed S] [--write_buffer_kib K] [--seconds S]\n",
               why.c_str());
  std::exit(2);
}

uint64_t ParseU64(const std::string& flag, const std::string& v) {
  char* end = nullptr;
  errno = 0;
  unsigned long long x = std::strtoull(v.c_str(), &end, 10);
  if (v.empty() || *end || errno || v[0] == '-') Usage(flag + " wants a non-negative integer, got `" + v + "`");
  return x;
}

double ParseF64(const std::string& flag, const std::string& v, double lo, double hi) {
  char* end = nullptr;
  double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end || !(x >= lo && x <= hi))
    Usage(flag + " wants a number in [" + std::to_string(lo) + ", " + std::to_string(hi) +
          "], got `" + v + "`");
  return x;
}

Args Parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; i++) {
    std::string f = argv[i];
    if (i + 1 >= argc) Usage("missing value for " + f);
    std::string v = argv[++i];
    if (f == "--config") a.config = v;
    else if (f == "--db") a.db = v;
    else if (f == "--mode") a.mode = v;
    else if (f == "--num") a.num = ParseU64(f, v);
    else if (f == "--ops") a.ops = ParseU64(f, v);
    else if (f == "--value_size") a.value_size = ParseU64(f, v);
    else if (f == "--cache_mib") a.cache_mib = ParseU64(f, v);
    else if (f == "--write_buffer_kib") a.write_buffer_kib = ParseU64(f, v);
    else if (f == "--seconds") a.seconds = ParseU64(f, v);
    else if (f == "--start") a.start = ParseU64(f, v);
    else if (f == "--seed") a.seed = ParseU64(f, v);
    else if (f == "--expect_last") a.expect_last = static_cast<int64_t>(ParseU64(f, v));
    else if (f == "--read_ratio") a.read_ratio = ParseF64(f, v, 0.0, 1.0);
    else if (f == "--zipf_theta") a.zipf_theta = ParseF64(f, v, 0.0, 0.999);
    else Usage("unknown flag " + f);
  }
  if (a.config.empty() || a.db.empty() || a.mode.empty()) Usage("--config, --db and --mode are required");
  if (a.num == 0) Usage("--num must be > 0");
  if (a.value_size == 0) Usage("--value_size must be > 0");
  if (a.write_buffer_kib < 64) Usage("--write_buffer_kib must be >= 64");
  if (a.ops == 0) a.ops = a.seconds ? UINT64_MAX : a.num;
  return a;
}

std::string Key(uint64_t k) {
  char b[32];
  std::snprintf(b, sizeof b, "%0*llu", kKeyDigits, static_cast<unsigned long long>(k));
  return b;
}

// The value of key k: deterministic, so `verify` can check contents.
std::string Value(uint64_t k, uint64_t size) {
  std::string v(size, '\0');
  uint64_t x = k * 0x9E3779B97F4A7C15ull + 1;
  for (uint64_t i = 0; i < size; i++) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    v[i] = static_cast<char>('a' + x % 26);
  }
  return v;
}

// YCSB's ZipfianGenerator (Gray et al., "Quickly generating billion-record synthetic
// databases", as in YCSB core), scrambled by hashing as YCSB's ScrambledZipfian.
class Zipf {
 public:
  Zipf(uint64_t n, double theta) : n_(n), theta_(theta) {
    for (uint64_t i = 1; i <= n; i++) zetan_ += 1.0 / std::pow(static_cast<double>(i), theta);
    double zeta2 = 1.0 + 1.0 / std::pow(2.0, theta);
    alpha_ = 1.0 / (1.0 - theta);
    eta_ = (1.0 - std::pow(2.0 / n, 1.0 - theta)) / (1.0 - zeta2 / zetan_);
  }
  uint64_t Next(std::mt19937_64& rng) {
    double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
    double uz = u * zetan_;
    uint64_t r;
    if (uz < 1.0) r = 0;
    else if (uz < 1.0 + std::pow(0.5, theta_)) r = 1;
    else r = static_cast<uint64_t>(n_ * std::pow(eta_ * u - eta_ + 1.0, alpha_));
    if (r >= n_) r = n_ - 1;
    uint64_t h = (r + 1) * 0xff51afd7ed558ccdull;  // FNV-like scramble of the rank
    h ^= h >> 33;
    return h % n_;
  }

 private:
  uint64_t n_;
  double theta_, zetan_ = 0, alpha_, eta_;
};

double Secs(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// True once `seconds` (> 0) have passed; checks the clock every 16 operations.
bool TimeUp(std::chrono::steady_clock::time_point t0, uint64_t seconds, uint64_t done) {
  constexpr uint64_t kCheckEveryOps = 16;
  return seconds > 0 && done % kCheckEveryOps == 0 && Secs(t0) >= static_cast<double>(seconds);
}

int Fail(const std::string& what, const Status& s) {
  std::fprintf(stderr, "hhzs_bench: %s: %s\n", what.c_str(), s.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  Args a = Parse(argc, argv);
  static const std::map<std::string, int> kModes = {
      {"fillrandom", 0}, {"readrandom", 1}, {"ycsb", 2}, {"crashwriter", 3}, {"verify", 4}, {"check", 5}};
  if (!kModes.count(a.mode)) Usage("unknown --mode `" + a.mode + "`");

  ConfigOptions cfg;
  Env* env = nullptr;
  std::shared_ptr<Env> env_guard;
  Status s = Env::CreateFromUri(cfg, "", "hhzs://" + a.config, &env, &env_guard);
  if (!s.ok()) return Fail("opening hhzs://" + a.config, s);

  std::shared_ptr<SecondaryCache> sec;
  s = SecondaryCache::CreateFromString(cfg, "hhzs_cache://", &sec);
  if (!s.ok()) return Fail("creating hhzs_cache://", s);
  LRUCacheOptions lru(a.cache_mib * kMiB, -1, false, 0.5);
  lru.secondary_cache = sec;
  BlockBasedTableOptions bbt;
  bbt.block_cache = NewLRUCache(lru);

  Options o;
  o.env = env;
  o.create_if_missing = true;
  o.write_buffer_size = a.write_buffer_kib * 1024;
  o.target_file_size_base = kTargetFileBytes;
  o.max_bytes_for_level_base = kLevelBaseBytes;
  o.compression = kNoCompression;  // block sizes then equal read sizes (cache-key check)
  o.max_background_jobs = 2;
  o.max_subcompactions = 1;
  o.compaction_readahead_size = kCompactionReadaheadBytes;
  o.listeners.push_back(hhzs::NewHintListener());
  o.table_factory.reset(NewBlockBasedTableFactory(bbt));

  DB* raw = nullptr;
  s = DB::Open(o, a.db, &raw);
  if (!s.ok()) return Fail("DB::Open(" + a.db + ")", s);
  std::unique_ptr<DB> db(raw);

  std::mt19937_64 rng(a.seed);
  WriteOptions wo;
  ReadOptions ro;
  int rc = 0;
  auto t0 = std::chrono::steady_clock::now();
  // wrong: values read that differ from what was written (e.g. a bad block from the
  // SSD cache) -> exit 1.
  uint64_t done = 0, found = 0, reads = 0, writes = 0, wrong = 0;
  switch (kModes.at(a.mode)) {
    case 0:  // fillrandom: num puts of uniformly random keys in [0, num)
      for (; done < a.num; done++) {
        uint64_t k = std::uniform_int_distribution<uint64_t>(0, a.num - 1)(rng);
        s = db->Put(wo, Key(k), Value(k, a.value_size));
        if (!s.ok()) return Fail("put", s);
      }
      writes = done;
      break;
    case 1:  // readrandom: ops gets of uniformly random keys
      for (std::string v; done < a.ops && !TimeUp(t0, a.seconds, done); done++) {
        uint64_t k = std::uniform_int_distribution<uint64_t>(0, a.num - 1)(rng);
        s = db->Get(ro, Key(k), &v);
        if (s.ok()) {
          found++;
          if (v != Value(k, a.value_size)) wrong++;
        } else if (!s.IsNotFound()) {
          return Fail("get", s);
        }
      }
      reads = done;
      break;
    case 2: {  // ycsb: read_ratio gets, the rest updates, zipfian keys (YCSB A/B-like)
      Zipf z(a.num, a.zipf_theta);
      for (std::string v; done < a.ops && !TimeUp(t0, a.seconds, done); done++) {
        uint64_t k = z.Next(rng);
        if (std::uniform_real_distribution<double>(0, 1)(rng) < a.read_ratio) {
          s = db->Get(ro, Key(k), &v);
          reads++;
          if (s.ok()) {
            found++;
            if (v != Value(k, a.value_size)) wrong++;
          } else if (!s.IsNotFound()) {
            return Fail("get", s);
          }
        } else {
          s = db->Put(wo, Key(k), Value(k, a.value_size));
          writes++;
          if (!s.ok()) return Fail("put", s);
        }
      }
      break;
    }
    case 3: {  // crashwriter: sequential synced puts, each acknowledged key printed
      WriteOptions sync_wo;
      sync_wo.sync = true;
      for (uint64_t k = a.start; k < a.start + a.num; k++) {
        s = db->Put(sync_wo, Key(k), Value(k, a.value_size));
        if (!s.ok()) return Fail("synced put", s);
        std::printf("%llu\n", static_cast<unsigned long long>(k));
        std::fflush(stdout);
      }
      return 0;  // reached --num without being killed
    }
    case 4: {  // verify: every key in [0, expect_last] present with its value
      std::string v;
      uint64_t missing = 0, wrong = 0;
      for (int64_t k = 0; k <= a.expect_last; k++) {
        s = db->Get(ro, Key(k), &v);
        if (s.IsNotFound()) {
          if (missing++ < 5) std::fprintf(stderr, "verify: acknowledged key %lld missing\n", (long long)k);
        } else if (!s.ok()) {
          return Fail("get", s);
        } else if (v != Value(k, a.value_size)) {
          if (wrong++ < 5) std::fprintf(stderr, "verify: key %lld has a wrong value\n", (long long)k);
        }
      }
      std::string msg;
      bool consistent = hhzs::CheckStore(&msg);
      std::printf("verify: %lld acknowledged keys, %llu missing, %llu wrong; zl_fs_check: %s\n",
                  (long long)(a.expect_last + 1), (unsigned long long)missing,
                  (unsigned long long)wrong, consistent ? "ok" : msg.c_str());
      rc = (missing || wrong || !consistent) ? 1 : 0;
      break;
    }
    case 5: {  // check: any database (e.g. db_bench's) opens, every key reads, store consistent
      std::unique_ptr<Iterator> it(db->NewIterator(ro));
      uint64_t keys = 0;
      for (it->SeekToFirst(); it->Valid(); it->Next()) keys++;
      if (!it->status().ok()) return Fail("scan", it->status());
      std::string msg;
      bool consistent = hhzs::CheckStore(&msg);
      std::printf("check: database opened, %llu keys scanned; zl_fs_check: %s\n",
                  (unsigned long long)keys, consistent ? "ok" : msg.c_str());
      rc = consistent ? 0 : 1;
      break;
    }
  }
  if (a.mode != "verify" && a.mode != "check") {
    double secs = Secs(t0);
    std::printf(
        "%s: %llu ops in %.2f s = %.0f ops/s (reads %llu, found %llu, wrong values %llu, "
        "writes %llu)\n",
        a.mode.c_str(), (unsigned long long)done, secs, done / (secs > 0 ? secs : 1),
        (unsigned long long)reads, (unsigned long long)found, (unsigned long long)wrong,
        (unsigned long long)writes);
    if (wrong) rc = 1;
  }
  s = db->Close();
  if (!s.ok()) return Fail("close", s);
  db.reset();
  std::string msg;
  if (!hhzs::CheckStore(&msg)) {
    std::fprintf(stderr, "hhzs_bench: zl_fs_check after close: %s\n", msg.c_str());
    rc = 1;
  }
  std::printf("stats: %s\n", hhzs::StatsJson().c_str());
  return rc;
}
