// hhzs_store.cc — opening, finding, describing and closing the process's zone file store.
#include "hhzs_store.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace hhzs {
namespace {

std::mutex g_mu;
Store* g_store = nullptr;

// Value of a top-level `key = "string"` line of a TOML file ("" if absent). Only what
// the plugin needs (the `dir` key); the Rust side parses the full config.
std::string TomlString(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    size_t p = line.find_first_not_of(" \t");
    if (p == std::string::npos || line[p] == '#') continue;
    if (line[p] == '[') break;  // a table starts: top-level keys are over
    if (line.compare(p, key.size(), key) != 0) continue;
    size_t q = line.find_first_not_of(" \t", p + key.size());
    if (q == std::string::npos || line[q] != '=') continue;
    size_t a = line.find('"', q);
    size_t b = a == std::string::npos ? a : line.find('"', a + 1);
    if (b == std::string::npos) continue;
    return line.substr(a + 1, b - a - 1);
  }
  return "";
}

std::string DirName(const std::string& path) {
  size_t s = path.rfind('/');
  if (s == std::string::npos) return ".";
  return s == 0 ? "/" : path.substr(0, s);
}

void MkdirP(const std::string& dir) {
  std::string cur;
  std::stringstream ss(dir);
  std::string part;
  if (!dir.empty() && dir[0] == '/') cur = "/";
  while (std::getline(ss, part, '/')) {
    if (part.empty()) continue;
    cur += part + "/";
    mkdir(cur.c_str(), 0755);
  }
}

// At exit() the main thread's thread-locals, libzonelab's per-thread last error among
// them, are already destroyed, and a zl_* call there aborts the process. The atexit
// fallback therefore closes the store from a fresh thread.
void ShutdownAtExit() {
  Store* s = Store::Current();
  if (!s) return;
  std::thread t([s] { s->Shutdown(); });
  t.join();
}

}  // namespace

bool TracingHints() {
  static const bool on = [] {
    const char* v = std::getenv("HHZS_TRACE_HINTS");
    return v && *v && std::string(v) != "0";
  }();
  return on;
}

void TraceHint(const std::string& line) {
  if (TracingHints()) std::fprintf(stderr, "hhzs hint: %s\n", line.c_str());
}

std::string JoinNames(const char* const* names, uint64_t n) {
  std::string r = "[";
  for (uint64_t i = 0; i < n; i++) r += (i ? "," : "") + std::string(names[i]);
  return r + "]";
}

std::string ZlError(int32_t status) {
  std::string m = "zonelab status " + std::to_string(status);
  const char* msg = zl_last_error_message();
  if (msg && *msg) m += ": " + std::string(msg);
  return m;
}

Store* Store::Open(const std::string& config_path, std::string* err) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_store) {
    if (g_store->config_path_ == config_path && g_store->fs()) return g_store;
    *err = "hhzs: a store (" + g_store->config_path_ +
           ") is already open in this process; one store per process";
    return nullptr;
  }
  // zl_fs_open validates the whole config (its errors name the bad key or value).
  ZlFs* fs = nullptr;
  int32_t st = zl_fs_open(config_path.c_str(), &fs);
  if (st != ZL_OK || !fs) {
    *err = "hhzs: zl_fs_open(" + config_path + "): " + ZlError(st);
    return nullptr;
  }
  std::string dir = TomlString(config_path, "dir");
  if (dir.empty()) {
    zl_fs_close(fs);
    *err = "hhzs: config `" + config_path + "` has no `dir = \"...\"` line the plugin can read";
    return nullptr;
  }
  // A relative `dir` is relative to the config file's directory (docs/c-api.md).
  if (dir[0] != '/') dir = DirName(config_path) + "/" + dir;
  Store* s = new Store();
  s->fs_ = fs;
  s->config_path_ = config_path;
  s->aux_dir_ = dir + "/aux";
  MkdirP(s->aux_dir_);
  g_store = s;
  std::atexit(ShutdownAtExit);
  return s;
}

Store* Store::Current() {
  std::lock_guard<std::mutex> lock(g_mu);
  return g_store;
}

std::string Store::StatsJson() {
  if (!fs()) return "";
  std::string buf(1 << 16, '\0');
  for (int attempt = 0; attempt < 4; attempt++) {
    uint64_t needed = 0;
    int32_t st = zl_fs_stats_json(fs(), &buf[0], buf.size(), &needed);
    if (st != ZL_OK) return "";
    if (needed <= buf.size()) {
      buf.resize(needed);
      while (!buf.empty() && buf.back() == '\0') buf.pop_back();
      return buf;
    }
    buf.assign(needed + 4096, '\0');
  }
  return "";
}

bool Store::List(std::vector<std::string>* names) {
  names->clear();
  if (!fs()) return false;
  std::string buf(1 << 14, '\0');
  for (int attempt = 0; attempt < 4; attempt++) {
    uint64_t needed = 0;
    int32_t st = zl_fs_list(fs(), &buf[0], buf.size(), &needed);
    if (st != ZL_OK) return false;
    if (needed <= buf.size()) {
      size_t start = 0;
      for (size_t i = 0; i < needed; i++) {
        if (buf[i] == '\0') {
          if (i > start) names->emplace_back(buf, start, i - start);
          start = i + 1;
        }
      }
      return true;
    }
    buf.assign(needed + 1024, '\0');
  }
  return false;
}

std::string Store::PluginCountersJson() {
  PluginCounters& c = counters_;
  std::ostringstream o;
  o << "{\"flush_hints\":" << c.flush_hints << ",\"compaction_begin_hints\":"
    << c.compaction_begin_hints << ",\"estimated_inputs\":" << c.estimated_inputs
    << ",\"compaction_end_hints\":" << c.compaction_end_hints
    << ",\"trivial_move_hints\":" << c.trivial_move_hints
    << ",\"level_from_listener\":" << c.level_from_listener
    << ",\"level_from_collector\":" << c.level_from_collector
    << ",\"level_from_partitioner\":" << c.level_from_partitioner
    << ",\"level_from_lifetime_hint\":" << c.level_from_lifetime_hint
    << ",\"sec_inserts\":" << c.sec_inserts << ",\"sec_insert_unbound\":" << c.sec_insert_unbound
    << ",\"sec_lookups\":" << c.sec_lookups << ",\"sec_lookup_unbound\":" << c.sec_lookup_unbound
    << ",\"sec_hits\":" << c.sec_hits << ",\"sec_hit_key_mismatch\":" << c.sec_hit_key_mismatch
    << ",\"bindings\":" << c.bindings << ",\"binding_len_match\":" << c.binding_len_match
    << ",\"binding_len_other\":" << c.binding_len_other
    << ",\"store_errors\":" << c.store_errors << "}";
  return o.str();
}

// Count first, then load: a Shutdown that swapped the handle out either sees this
// count and waits, or happened before the load, which then reads nullptr.
FsRef::FsRef(const Store* s) : s_(s) {
  s_->in_flight_.fetch_add(1, std::memory_order_seq_cst);
  fs_ = s_->fs_.load(std::memory_order_seq_cst);
}
FsRef::~FsRef() { s_->in_flight_.fetch_sub(1, std::memory_order_seq_cst); }

void Store::Shutdown() {
  std::lock_guard<std::mutex> lock(shutdown_mu_);
  if (shut_) return;
  shut_ = true;
  const char* out = std::getenv("HHZS_STATS_JSON");
  if (out && *out) {
    std::string stats = StatsJson();
    std::ofstream f(out, std::ios::trunc);
    f << "{\"store\":" << (stats.empty() ? "null" : stats)
      << ",\"plugin\":" << PluginCountersJson() << "}\n";
  }
  ZlFs* fs = fs_.exchange(nullptr, std::memory_order_seq_cst);
  // Calls that loaded the handle before the swap finish before it is freed.
  while (in_flight_.load(std::memory_order_seq_cst) != 0) std::this_thread::yield();
  int32_t st = zl_fs_close(fs);
  if (st != ZL_OK) std::fprintf(stderr, "hhzs: zl_fs_close: %s\n", ZlError(st).c_str());
}

}  // namespace hhzs
