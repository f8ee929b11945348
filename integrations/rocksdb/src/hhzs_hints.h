// hhzs_hints.h — where the level, flush and compaction hints of HHZS §3.1 come from.
//
// Three sources, in order of precision (docs/rocksdb.md, "Hints"):
//  1. the EventListener (driver `hhzs_bench`): OnTableFileCreationStarted runs on the
//     thread that next calls NewWritableFile for that SST, with the job id and reason;
//     OnCompactionBegin gives job id, inputs and output level; OnCompactionCompleted
//     the outputs (and trivial moves, whose outputs are their inputs);
//  2. options-file Customizables (Debian's db_bench): the SstPartitionerFactory
//     `hhzs_level` sees each compaction's output level and key range before its
//     outputs are created on the same thread; the TablePropertiesCollectorFactory
//     `hhzs_level` sees every new SST's `level_at_creation` right after its file is
//     created, before any append, and its keys (so the compaction's inputs can be
//     estimated from key ranges);
//  3. the write-lifetime hint RocksDB gives every SST file (a coarse level).
// The FileSystem calls the functions below when it creates an SST.
#pragma once

#include <cstdint>
#include <string>

#include "hhzs_store.h"

namespace hhzs {

// Sets the thread's "next SST to be created" (listener path).
void ExpectSstCreation(const std::string& base_name, int job_id, bool is_flush, int level);
// True once an EventListener of this plugin is installed: the options-file factories
// then only refine levels and leave flush/compaction hints to the listener.
bool ListenerInstalled();
void MarkListenerInstalled();
// Called by the FileSystem right before zl_fs_create of an SST: the level to create it
// with (-1 = unknown). Records the file as this thread's last created SST.
int LevelAtSstCreation(const std::string& base_name);
// Called right after zl_fs_create succeeded: sends the flush hint of the listener path.
void AfterSstCreated(Store* store, const std::string& base_name);
// Maps a write-lifetime hint (Env::WriteLifeTimeHint value) to a coarse level when the
// file's level is still unknown and neither the listener nor the `hhzs_level` collector
// will give it; returns true if it set one.
bool ApplyLifetimeHint(Store* store, const std::string& base_name, int hint);

// Drops a deleted SST from the key ranges used to estimate compaction inputs.
void ForgetSstRange(const std::string& sst_name);

// Base name of a path ("/db/000012.sst" -> "000012.sst").
std::string BaseName(const std::string& path);

}  // namespace hhzs
