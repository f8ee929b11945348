// hhzs_store.h — the one zone file store (libzonelab's ZlFs) a process uses.
//
// The FileSystem (`hhzs://<config.toml>`), the SecondaryCache (`hhzs_cache://`), the
// hint factories and the EventListener all talk to the same store: the first
// `hhzs://` FileSystem opens it, the others find it here. One store per process, one
// RocksDB database per store (the store names files by their base names, as RocksDB
// numbers them per database).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "zonelab.h"

namespace hhzs {

// Counters kept on the plugin side (the store counts the hints it receives).
struct PluginCounters {
  std::atomic<uint64_t> sec_inserts{0};        // SecondaryCache::Insert calls
  std::atomic<uint64_t> sec_insert_unbound{0}; // ... whose key had no (file, offset) yet
  std::atomic<uint64_t> sec_lookups{0};        // SecondaryCache::Lookup calls
  std::atomic<uint64_t> sec_lookup_unbound{0}; // ... whose key had no (file, offset)
  std::atomic<uint64_t> sec_hits{0};           // blocks served from the store's SSD cache
  std::atomic<uint64_t> sec_hit_key_mismatch{0};  // cached bytes belonged to another key
  std::atomic<uint64_t> bindings{0};           // key -> (file, offset) bindings made
  std::atomic<uint64_t> binding_len_match{0};  // evicted block size + trailer == read size
  std::atomic<uint64_t> binding_len_other{0};  // sizes differ (compressed block or misbinding)
  std::atomic<uint64_t> level_from_listener{0};
  std::atomic<uint64_t> level_from_collector{0};
  std::atomic<uint64_t> level_from_partitioner{0};
  std::atomic<uint64_t> level_from_lifetime_hint{0};
  std::atomic<uint64_t> flush_hints{0};
  std::atomic<uint64_t> compaction_begin_hints{0};
  std::atomic<uint64_t> estimated_inputs{0};  // inputs named by key-range estimates
  std::atomic<uint64_t> compaction_end_hints{0};
  std::atomic<uint64_t> trivial_move_hints{0};
  std::atomic<uint64_t> store_errors{0};
};

class Store;

// The open store's handle for one call: `zl_fs_x(s->fs(), ...)` keeps this
// temporary alive until the call returns, and Store::Shutdown waits for every live
// FsRef before it frees the store, so no thread can use a closed handle (RocksDB's
// block cache, for one, still evicts into the secondary cache while it is torn down).
class FsRef {
 public:
  explicit FsRef(const Store* s);
  ~FsRef();
  FsRef(const FsRef&) = delete;
  FsRef& operator=(const FsRef&) = delete;
  operator ZlFs*() const { return fs_; }

 private:
  const Store* s_;
  ZlFs* fs_;
};

class Store {
 public:
  // Opens the store of `config_path` (or returns the already open one if it is the
  // same config). Returns nullptr and sets *err on failure.
  static Store* Open(const std::string& config_path, std::string* err);
  // The open store, or nullptr before any hhzs:// FileSystem was created.
  static Store* Current();

  // The handle, pinned for the full expression it is used in (see FsRef).
  FsRef fs() const { return FsRef(this); }
  const std::string& config_path() const { return config_path_; }
  // Host directory for every file that is not a WAL or an SST: `<dir>/aux`, where
  // `dir` is the `dir` key of the store's config.
  const std::string& aux_dir() const { return aux_dir_; }
  PluginCounters& counters() { return counters_; }

  // zl_fs_stats_json with the buffer protocol handled; "" on error.
  std::string StatsJson();
  // zl_fs_list as a vector of names.
  bool List(std::vector<std::string>* names);
  // One-line JSON of the plugin-side counters.
  std::string PluginCountersJson();
  // Writes the store's stats and the plugin counters to $HHZS_STATS_JSON (if set),
  // then closes the store. Idempotent. Called when the hhzs:// FileSystem is destroyed
  // (after RocksDB closed the database) and, as a fallback, at exit.
  void Shutdown();

 private:
  Store() = default;
  friend class FsRef;
  std::atomic<ZlFs*> fs_{nullptr};
  // FsRefs alive: calls that may be using fs_.
  mutable std::atomic<int64_t> in_flight_{0};
  std::string config_path_;
  std::string aux_dir_;
  PluginCounters counters_;
  std::mutex shutdown_mu_;
  bool shut_ = false;
};

// With HHZS_TRACE_HINTS=1 in the environment, prints one line per hint to stderr.
bool TracingHints();
void TraceHint(const std::string& line);
std::string JoinNames(const char* const* names, uint64_t n);

// Last error message of this thread's zl_* call, with the status code.
std::string ZlError(int32_t status);

}  // namespace hhzs
