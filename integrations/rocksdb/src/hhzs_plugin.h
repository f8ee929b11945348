// hhzs_plugin.h — what a program linking libzonelab_rocksdb.so (the driver hhzs_bench)
// uses besides the ObjectLibrary names `hhzs://`, `hhzs_cache://` and `hhzs_level`.
#pragma once

#include <rocksdb/listener.h>

#include <memory>
#include <string>

namespace hhzs {

// The EventListener giving the exact flush, compaction and trivial-move hints
// (OnFlushBegin, OnTableFileCreationStarted, OnCompactionBegin, OnCompactionCompleted).
std::shared_ptr<ROCKSDB_NAMESPACE::EventListener> NewHintListener();
// zl_fs_stats_json of the open store wrapped with the plugin's counters:
// {"store": ..., "plugin": ...}; "" before a hhzs:// FileSystem exists.
std::string StatsJson();
// zl_fs_check on the open store: true if consistent, else false with the message.
bool CheckStore(std::string* message);

}  // namespace hhzs
