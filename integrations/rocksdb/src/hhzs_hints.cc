// hhzs_hints.cc — per-thread bookkeeping behind the level/flush/compaction hints, and the
// two options-file Customizables: TablePropertiesCollectorFactory and
// SstPartitionerFactory named `hhzs_level` (HHZS §3.1, "hints").
#include "hhzs_hints.h"

#include <rocksdb/env.h>
#include <rocksdb/sst_partitioner.h>
#include <rocksdb/table_properties.h>
#include <rocksdb/utilities/object_registry.h>

#include <atomic>
#include <map>
#include <mutex>
#include <memory>
#include <vector>

using namespace ROCKSDB_NAMESPACE;

namespace hhzs {
namespace {

std::atomic<bool> g_listener{false};
// Set when an options file configured the `hhzs_level` collector: every SST's level
// then comes from it, and the coarse write-lifetime fallback stays off.
std::atomic<bool> g_collector{false};
// Job ids for hints that RocksDB does not number on the options-file path. Kept far
// from RocksDB's own job ids (small integers) so the two never collide in one store.
constexpr uint64_t kSyntheticJobBase = 1ull << 40;
std::atomic<uint64_t> g_next_job{kSyntheticJobBase};

struct Expected {  // listener path: the SST this thread is about to create
  bool valid = false;
  std::string name;
  int job = 0;
  bool flush = false;
  int level = -1;
};
thread_local Expected t_expected;
thread_local std::string t_last_sst;     // last SST created on this thread
thread_local bool t_last_sst_listener = false;
thread_local bool t_last_sst_partitioner = false;

void CountError(Store* s, int32_t st) {
  if (st != ZL_OK) s->counters().store_errors++;
}

// ---- options-file path: key ranges of the SSTs this process wrote ---------------
//
// The collector sees every key of every new SST. Its range and level let the
// partitioner estimate a compaction's inputs, which RocksDB does not show to it: the
// SSTs of the output level and of the level above that overlap the compaction's key
// range (how RocksDB's leveled picker selects them). SSTs from before the process
// started, and levels changed by trivial moves, are unknown here.

struct SstRange {
  int level;
  std::string smallest, largest;
};
std::mutex g_ranges_mu;
std::map<std::string, SstRange> g_ranges;  // SST name -> level and key range

std::vector<std::string> EstimateInputs(int output_level, const std::string& lo,
                                        const std::string& hi) {
  std::vector<std::string> r;
  int start_level = output_level - 1;
  std::lock_guard<std::mutex> lock(g_ranges_mu);
  for (auto& kv : g_ranges) {
    const SstRange& x = kv.second;
    if (x.level != output_level && x.level != start_level) continue;
    if (x.largest < lo || x.smallest > hi) continue;
    r.push_back(kv.first);
  }
  return r;
}

// ---- options-file path: SstPartitionerFactory ----------------------------------
//
// RocksDB 7.8 creates partitioners (a) once in Compaction::IsTrivialMove, only to ask
// CanDoTrivialMove, and (b) twice per subcompaction (its normal and its penultimate-level
// CompactionOutputs), all on the thread that then creates the compaction's output SSTs.
// The partitioners alive at once on a thread share one "session" = one compaction: its
// compaction-begin hint goes out before its first output SST is created, its end hint
// (with the outputs) when its last partitioner is destroyed. A session that created no
// SST (a trivial-move check, or a compaction whose output is empty) sends no hint.

struct Session {
  uint64_t job;
  int level;
  bool begun = false;
  std::string smallest, largest;  // the compaction's key range
  std::vector<std::string> outputs;
  Session(uint64_t j, int l, std::string lo, std::string hi)
      : job(j), level(l), smallest(std::move(lo)), largest(std::move(hi)) {}
  ~Session() {
    Store* s = Store::Current();
    if (!begun || !s || !s->fs() || ListenerInstalled()) return;
    std::vector<const char*> outs;
    for (auto& n : outputs) outs.push_back(n.c_str());
    TraceHint("compaction_end job=" + std::to_string(job) + " level=" + std::to_string(level) + " outputs=" + JoinNames(outs.data(), outs.size()));
    CountError(s, zl_fs_hint_compaction_end(s->fs(), job, outs.data(), outs.size(), level));
    s->counters().compaction_end_hints++;
  }
};
thread_local std::shared_ptr<Session> t_session;

class LevelPartitioner : public SstPartitioner {
 public:
  explicit LevelPartitioner(std::shared_ptr<Session> session) : session_(std::move(session)) {}
  ~LevelPartitioner() override {
    // The last partitioner of this thread's session: the compaction is over.
    if (t_session == session_ && session_.use_count() == 2) t_session.reset();
  }
  const char* Name() const override { return "hhzs_level"; }
  PartitionerResult ShouldPartition(const PartitionerRequest&) override {
    return kNotRequired;  // never cuts files: it only observes the output level
  }
  bool CanDoTrivialMove(const Slice&, const Slice&) override { return true; }

 private:
  std::shared_ptr<Session> session_;
};

class LevelPartitionerFactory : public SstPartitionerFactory {
 public:
  static const char* kClassName() { return "hhzs_level"; }
  const char* Name() const override { return kClassName(); }
  std::unique_ptr<SstPartitioner> CreatePartitioner(
      const SstPartitioner::Context& ctx) const override {
    if (!t_session || t_session->level != ctx.output_level)
      t_session = std::make_shared<Session>(g_next_job++, ctx.output_level,
                                            ctx.smallest_user_key.ToString(),
                                            ctx.largest_user_key.ToString());
    return std::make_unique<LevelPartitioner>(t_session);
  }
};

// ---- options-file path: TablePropertiesCollectorFactory --------------------------

// Records the SST's key range (bytewise order, db_bench's comparator) when it is done.
class RangeCollector : public TablePropertiesCollector {
 public:
  RangeCollector(std::string name, int level) : name_(std::move(name)), level_(level) {}
  Status AddUserKey(const Slice& key, const Slice&, EntryType, SequenceNumber,
                    uint64_t) override {
    if (name_.empty()) return Status::OK();
    if (!any_ || key.compare(smallest_) < 0) smallest_.assign(key.data(), key.size());
    if (!any_ || key.compare(largest_) > 0) largest_.assign(key.data(), key.size());
    any_ = true;
    return Status::OK();
  }
  Status Finish(UserCollectedProperties*) override {
    if (any_ && level_ >= 0) {
      std::lock_guard<std::mutex> lock(g_ranges_mu);
      g_ranges[name_] = SstRange{level_, smallest_, largest_};
    }
    return Status::OK();
  }
  UserCollectedProperties GetReadableProperties() const override { return {}; }
  const char* Name() const override { return "hhzs_level"; }

 private:
  std::string name_;
  int level_;
  bool any_ = false;
  std::string smallest_, largest_;
};

class LevelCollectorFactory : public TablePropertiesCollectorFactory {
 public:
  LevelCollectorFactory() { g_collector = true; }
  static const char* kClassName() { return "hhzs_level"; }
  const char* Name() const override { return kClassName(); }
  TablePropertiesCollector* CreateTablePropertiesCollector(
      TablePropertiesCollectorFactory::Context ctx) override {
    // RocksDB creates the table builder (and so this collector) right after
    // NewWritableFile of the SST on the same thread, before its first append.
    Store* s = Store::Current();
    if (s && s->fs() && !t_last_sst.empty() && ctx.level_at_creation >= 0 &&
        !t_last_sst_listener) {
      s->counters().level_from_collector++;
      if (ctx.level_at_creation == 0 && !t_last_sst_partitioner) {
        // A level-0 SST made outside a compaction is a flush output. As in the LSM
        // model (crates/systems/src/lsm/db.rs), a flush sends only its flush hint,
        // which also sets level 0; an SstGenerated would lower L0's storage demand.
        TraceHint("flush (inferred) " + t_last_sst);
        CountError(s, zl_fs_hint_flush(s->fs(), g_next_job++, t_last_sst.c_str()));
        s->counters().flush_hints++;
      } else {
        // A compaction output: the store turns this into HHZS's "SST generated".
        TraceHint("sst_level " + t_last_sst + " " + std::to_string(ctx.level_at_creation));
        CountError(s, zl_fs_set_level(s->fs(), t_last_sst.c_str(), ctx.level_at_creation));
      }
    }
    auto* c = new RangeCollector(t_last_sst, ctx.level_at_creation);
    t_last_sst.clear();
    return c;
  }
};

bool RegisterFactories() {
  auto lib = ObjectLibrary::Default();
  lib->AddFactory<SstPartitionerFactory>(
      LevelPartitionerFactory::kClassName(),
      [](const std::string&, std::unique_ptr<SstPartitionerFactory>* guard, std::string*) {
        guard->reset(new LevelPartitionerFactory());
        return guard->get();
      });
  lib->AddFactory<TablePropertiesCollectorFactory>(
      LevelCollectorFactory::kClassName(),
      [](const std::string&, std::unique_ptr<TablePropertiesCollectorFactory>* guard,
         std::string*) {
        guard->reset(new LevelCollectorFactory());
        return guard->get();
      });
  return true;
}
const bool g_registered = RegisterFactories();

}  // namespace

void ForgetSstRange(const std::string& sst_name) {
  std::lock_guard<std::mutex> lock(g_ranges_mu);
  g_ranges.erase(sst_name);
}

std::string BaseName(const std::string& path) {
  size_t s = path.rfind('/');
  return s == std::string::npos ? path : path.substr(s + 1);
}

void ExpectSstCreation(const std::string& base_name, int job_id, bool is_flush, int level) {
  t_expected.valid = true;
  t_expected.name = base_name;
  t_expected.job = job_id;
  t_expected.flush = is_flush;
  t_expected.level = level;
}

bool ListenerInstalled() { return g_listener.load(std::memory_order_relaxed); }
void MarkListenerInstalled() { g_listener = true; }

int LevelAtSstCreation(const std::string& base_name) {
  t_last_sst = base_name;
  t_last_sst_listener = t_expected.valid && t_expected.name == base_name;
  t_last_sst_partitioner = !t_last_sst_listener && t_session != nullptr;
  Store* s = Store::Current();
  if (t_last_sst_listener) {
    if (s) s->counters().level_from_listener++;
    return t_expected.level;
  }
  if (t_last_sst_partitioner) {
    if (s) s->counters().level_from_partitioner++;
    if (s && s->fs() && !t_session->begun && !ListenerInstalled()) {
      // RocksDB does not show the compaction's inputs here: they are estimated
      // from key ranges (docs/rocksdb.md), now, so that SSTs deleted since the
      // compaction was picked are left out.
      std::vector<std::string> inputs =
          EstimateInputs(t_session->level, t_session->smallest, t_session->largest);
      std::vector<const char*> ins;
      for (auto& n : inputs) ins.push_back(n.c_str());
      TraceHint("compaction_begin job=" + std::to_string(t_session->job) + " level=" +
                std::to_string(t_session->level) + " inputs(estimated)=" +
                JoinNames(ins.data(), ins.size()));
      CountError(s, zl_fs_hint_compaction_begin(s->fs(), t_session->job, ins.data(),
                                                ins.size(), t_session->level));
      s->counters().estimated_inputs += ins.size();
      s->counters().compaction_begin_hints++;
    }
    t_session->begun = true;
    t_session->outputs.push_back(base_name);
    return t_session->level;
  }
  return -1;
}

void AfterSstCreated(Store* store, const std::string& base_name) {
  if (!t_expected.valid || t_expected.name != base_name) return;
  if (t_expected.flush) {
    TraceHint("flush job=" + std::to_string(t_expected.job) + " " + base_name);
    CountError(store, zl_fs_hint_flush(store->fs(), static_cast<uint64_t>(t_expected.job),
                                       base_name.c_str()));
    store->counters().flush_hints++;
  } else if (t_expected.level >= 0) {
    // HHZS §3.1 compaction hint phase (ii), "SST generated at level L": the store
    // sends it on zl_fs_set_level (creating the file with its level does not).
    TraceHint("sst_level " + base_name + " " + std::to_string(t_expected.level));
    CountError(store, zl_fs_set_level(store->fs(), base_name.c_str(), t_expected.level));
  }
  t_expected.valid = false;
}

bool ApplyLifetimeHint(Store* store, const std::string& base_name, int hint) {
  if (g_collector || ListenerInstalled()) return false;  // an exact source exists
  // RocksDB's level compaction gives L0 and the base level WLTH_MEDIUM, the next level
  // WLTH_LONG and every deeper level WLTH_EXTREME (ColumnFamilyData::CalculateSSTWriteHint).
  int level;
  switch (hint) {
    case Env::WLTH_MEDIUM: level = 0; break;
    case Env::WLTH_LONG: level = 2; break;
    case Env::WLTH_EXTREME: level = 3; break;
    default: return false;
  }
  CountError(store, zl_fs_set_level(store->fs(), base_name.c_str(), level));
  store->counters().level_from_lifetime_hint++;
  return true;
}

}  // namespace hhzs
