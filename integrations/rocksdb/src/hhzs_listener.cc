// hhzs_listener.cc — the EventListener behind the driver's exact hints (HHZS §3.1):
// flush (job id + SST), compaction begin (job id, input SSTs, output level), SST level at
// creation, compaction end (outputs) and trivial moves, all from stock RocksDB 7.8.
#include <rocksdb/listener.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <vector>

#include "hhzs_hints.h"
#include "hhzs_plugin.h"
#include "hhzs_store.h"

using namespace ROCKSDB_NAMESPACE;

namespace hhzs {
namespace {

std::vector<const char*> CStrs(const std::vector<std::string>& v) {
  std::vector<const char*> r;
  for (auto& s : v) r.push_back(s.c_str());
  return r;
}

std::vector<std::string> BaseNames(const std::vector<std::string>& paths) {
  std::vector<std::string> r;
  for (auto& p : paths) r.push_back(BaseName(p));
  return r;
}

class HintListener : public EventListener {
 public:
  const char* Name() const override { return "HhzsHintListener"; }

  // Called on the flush thread before the flush's SST is created.
  void OnFlushBegin(DB*, const FlushJobInfo& info) override {
    ExpectSstCreation(BaseName(info.file_path), info.job_id, true, 0);
  }

  // Called on the creating thread right before NewWritableFile of the SST.
  void OnTableFileCreationStarted(const TableFileCreationBriefInfo& info) override {
    // A recovery flush (WAL replay at DB::Open) also writes a level-0 SST.
    bool flush = info.reason == TableFileCreationReason::kFlush ||
                 info.reason == TableFileCreationReason::kRecovery;
    int level = flush ? 0 : -1;
    if (!flush) {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = output_level_.find(info.job_id);
      if (it != output_level_.end()) level = it->second;
    }
    ExpectSstCreation(BaseName(info.file_path), info.job_id, flush, level);
  }

  void OnCompactionBegin(DB*, const CompactionJobInfo& ci) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      output_level_[ci.job_id] = ci.output_level;
    }
    Store* s = Store::Current();
    if (!s || !s->fs()) return;
    auto names = BaseNames(ci.input_files);
    auto c = CStrs(names);
    TraceHint("compaction_begin job=" + std::to_string(ci.job_id) + " level=" +
              std::to_string(ci.output_level) + " inputs=" + JoinNames(c.data(), c.size()));
    if (zl_fs_hint_compaction_begin(s->fs(), static_cast<uint64_t>(ci.job_id), c.data(),
                                    c.size(), ci.output_level) != ZL_OK)
      s->counters().store_errors++;
    s->counters().compaction_begin_hints++;
  }

  void OnCompactionCompleted(DB*, const CompactionJobInfo& ci) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      output_level_.erase(ci.job_id);
    }
    Store* s = Store::Current();
    if (!s || !s->fs()) return;
    auto outs = BaseNames(ci.output_files);
    auto ins = BaseNames(ci.input_files);
    // A trivial move re-files its inputs at the output level: outputs == inputs.
    bool trivial = !outs.empty();
    for (auto& o : outs)
      if (std::find(ins.begin(), ins.end(), o) == ins.end()) trivial = false;
    if (trivial) {
      for (auto& o : outs) {
        TraceHint("trivial_move " + o + " to level " + std::to_string(ci.output_level));
        if (zl_fs_hint_trivial_move(s->fs(), o.c_str(), ci.output_level) != ZL_OK)
          s->counters().store_errors++;
        s->counters().trivial_move_hints++;
      }
      // OnCompactionBegin announced this move as a compaction with inputs; ending it
      // with no outputs releases the storage demand HHZS reserved for it.
      if (zl_fs_hint_compaction_end(s->fs(), static_cast<uint64_t>(ci.job_id), nullptr, 0,
                                    ci.output_level) != ZL_OK)
        s->counters().store_errors++;
      s->counters().compaction_end_hints++;
      return;
    }
    auto c = CStrs(outs);
    TraceHint("compaction_end job=" + std::to_string(ci.job_id) + " level=" +
              std::to_string(ci.output_level) + " outputs=" + JoinNames(c.data(), c.size()));
    if (zl_fs_hint_compaction_end(s->fs(), static_cast<uint64_t>(ci.job_id), c.data(),
                                  c.size(), ci.output_level) != ZL_OK)
      s->counters().store_errors++;
    s->counters().compaction_end_hints++;
  }

 private:
  std::mutex mu_;
  std::map<int, int> output_level_;  // running compaction job -> output level
};

}  // namespace

std::shared_ptr<EventListener> NewHintListener() {
  MarkListenerInstalled();
  return std::make_shared<HintListener>();
}

std::string StatsJson() {
  Store* s = Store::Current();
  if (!s || !s->fs()) return "";
  std::string st = s->StatsJson();
  return "{\"store\":" + (st.empty() ? std::string("null") : st) +
         ",\"plugin\":" + s->PluginCountersJson() + "}";
}

bool CheckStore(std::string* message) {
  Store* s = Store::Current();
  if (!s || !s->fs()) {
    *message = "no hhzs store is open";
    return false;
  }
  int32_t st = zl_fs_check(s->fs());
  if (st == ZL_OK) return true;
  *message = ZlError(st);
  return false;
}

}  // namespace hhzs
