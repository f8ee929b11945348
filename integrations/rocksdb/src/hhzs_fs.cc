// hhzs_fs.cc — HhzsFileSystem, the `hhzs://<config.toml>` RocksDB FileSystem.
//
// WAL (NNNNNN.log) and SST (NNNNNN.sst) files live in the HHZS zone file store
// (libzonelab's zl_fs_*; files named by their base names). Every other file (MANIFEST,
// CURRENT, OPTIONS, IDENTITY, LOCK, LOG, temporary files) lives on the host file
// system under `<dir>/aux/<its absolute path>`, as ZenFS keeps LOCK and LOG in its aux
// path. A host file that this FileSystem did not create (e.g. db_bench's --options_file)
// is read from its real path when its aux copy does not exist. One database per store:
// its directory is recorded in `<dir>/aux/DBDIRS`.
#include <rocksdb/file_system.h>
#include <rocksdb/utilities/object_registry.h>

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "hhzs_cache.h"
#include "hhzs_hints.h"
#include "hhzs_store.h"

using namespace ROCKSDB_NAMESPACE;

namespace hhzs {
namespace {

// RocksDB names WALs and SSTs <number>.log / <number>.sst; "LOG" (the info log) is not one.
int ZoneKind(const std::string& path) {
  std::string b = BaseName(path);
  if (b.size() < 5 || !isdigit(static_cast<unsigned char>(b[0]))) return 0;
  std::string ext = b.substr(b.size() - 4);
  if (ext == ".sst") return ZL_FILE_SST;
  if (ext == ".log") return ZL_FILE_WAL;
  return 0;
}

std::string TrimSlash(std::string d) {
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  return d;
}

std::string DirOf(const std::string& path) {
  size_t s = path.rfind('/');
  if (s == std::string::npos) return ".";
  return s == 0 ? "/" : path.substr(0, s);
}

IOStatus ZlStatus(Store* s, int32_t st, const std::string& what) {
  if (st == ZL_OK) return IOStatus::OK();
  s->counters().store_errors++;
  return IOStatus::IOError("hhzs: " + what + ": " + ZlError(st));
}

bool HostExists(const std::string& p) {
  struct stat sb;
  return stat(p.c_str(), &sb) == 0;
}

// ---- files --------------------------------------------------------------------

class ZoneSequentialFile : public FSSequentialFile {
 public:
  ZoneSequentialFile(Store* s, std::string name) : s_(s), name_(std::move(name)) {}
  IOStatus Read(size_t n, const IOOptions&, Slice* result, char* scratch,
                IODebugContext*) override {
    uint64_t got = 0;
    int32_t st = zl_fs_read(s_->fs(), name_.c_str(), pos_, reinterpret_cast<uint8_t*>(scratch),
                            n, &got);
    if (st != ZL_OK) return ZlStatus(s_, st, "read " + name_);
    pos_ += got;
    *result = Slice(scratch, got);
    return IOStatus::OK();
  }
  IOStatus Skip(uint64_t n) override {
    pos_ += n;
    return IOStatus::OK();
  }
  IOStatus PositionedRead(uint64_t offset, size_t n, const IOOptions&, Slice* result,
                          char* scratch, IODebugContext*) override {
    uint64_t got = 0;
    int32_t st = zl_fs_read(s_->fs(), name_.c_str(), offset,
                            reinterpret_cast<uint8_t*>(scratch), n, &got);
    if (st != ZL_OK) return ZlStatus(s_, st, "read " + name_);
    *result = Slice(scratch, got);
    return IOStatus::OK();
  }

 private:
  Store* s_;
  std::string name_;
  uint64_t pos_ = 0;
};

class ZoneRandomAccessFile : public FSRandomAccessFile {
 public:
  ZoneRandomAccessFile(Store* s, std::string name) : s_(s), name_(std::move(name)) {}
  IOStatus Read(uint64_t offset, size_t n, const IOOptions&, Slice* result, char* scratch,
                IODebugContext*) const override {
    if (ZoneKind(name_) == ZL_FILE_SST) BindPendingCacheKey(name_, offset, n);
    uint64_t got = 0;
    int32_t st = zl_fs_read(s_->fs(), name_.c_str(), offset,
                            reinterpret_cast<uint8_t*>(scratch), n, &got);
    if (st != ZL_OK) return ZlStatus(s_, st, "read " + name_);
    *result = Slice(scratch, got);
    return IOStatus::OK();
  }

 private:
  Store* s_;
  std::string name_;
};

class ZoneWritableFile : public FSWritableFile {
 public:
  ZoneWritableFile(Store* s, std::string name, bool level_known)
      : s_(s), name_(std::move(name)), level_known_(level_known) {}
  ~ZoneWritableFile() override {
    if (!closed_) zl_fs_close_file(s_->fs(), name_.c_str());
  }
  using FSWritableFile::Append;
  IOStatus Append(const Slice& data, const IOOptions&, IODebugContext*) override {
    appended_ = true;
    int32_t st = zl_fs_append(s_->fs(), name_.c_str(),
                              reinterpret_cast<const uint8_t*>(data.data()), data.size());
    if (st != ZL_OK) return ZlStatus(s_, st, "append " + name_);
    size_ += data.size();
    return IOStatus::OK();
  }
  IOStatus Truncate(uint64_t size, const IOOptions&, IODebugContext*) override {
    if (size == size_) return IOStatus::OK();
    return IOStatus::NotSupported("hhzs: zone files cannot be truncated");
  }
  IOStatus Close(const IOOptions&, IODebugContext*) override {
    if (closed_) return IOStatus::OK();
    closed_ = true;
    return ZlStatus(s_, zl_fs_close_file(s_->fs(), name_.c_str()), "close " + name_);
  }
  IOStatus Flush(const IOOptions&, IODebugContext*) override { return IOStatus::OK(); }
  IOStatus Sync(const IOOptions&, IODebugContext*) override {
    return ZlStatus(s_, zl_fs_sync(s_->fs(), name_.c_str()), "sync " + name_);
  }
  IOStatus Fsync(const IOOptions& o, IODebugContext* d) override { return Sync(o, d); }
  bool IsSyncThreadSafe() const override { return true; }
  uint64_t GetFileSize(const IOOptions&, IODebugContext*) override { return size_; }
  void SetWriteLifeTimeHint(Env::WriteLifeTimeHint hint) override {
    FSWritableFile::SetWriteLifeTimeHint(hint);
    // Only a fallback: the file's level is unknown and no data is in it yet.
    if (!level_known_ && !appended_ && ZoneKind(name_) == ZL_FILE_SST)
      level_known_ = ApplyLifetimeHint(s_, name_, static_cast<int>(hint));
  }

 private:
  Store* s_;
  std::string name_;
  bool level_known_;
  bool appended_ = false;
  bool closed_ = false;
  uint64_t size_ = 0;
};

// ---- the FileSystem -----------------------------------------------------------

class HhzsFileSystem : public FileSystemWrapper {
 public:
  HhzsFileSystem(Store* s)
      : FileSystemWrapper(FileSystem::Default()), s_(s) {
    LoadDbDirs();
  }
  // RocksDB has closed the database: close the store (and write $HHZS_STATS_JSON).
  ~HhzsFileSystem() override { s_->Shutdown(); }
  static const char* kClassName() { return "HhzsFileSystem"; }
  const char* Name() const override { return kClassName(); }

  // Where a non-zone file lives: <aux>/<path>.
  std::string Aux(const std::string& p) const {
    return s_->aux_dir() + (p.empty() || p[0] != '/' ? "/" : "") + p;
  }
  // For reads of host files: the aux copy, or the real path if only that exists.
  std::string AuxForRead(const std::string& p) const {
    std::string a = Aux(p);
    if (!HostExists(a) && HostExists(p)) return p;
    return a;
  }

  // The store's name for zone file `f` in *b, or PathNotFound if it has none.
  IOStatus ExistingZoneFile(const std::string& f, std::string* b) const {
    *b = BaseName(f);
    uint64_t size;
    if (zl_fs_size(s_->fs(), b->c_str(), &size) != ZL_OK)
      return IOStatus::PathNotFound("hhzs: no such file " + f);
    return IOStatus::OK();
  }

  IOStatus NewSequentialFile(const std::string& f, const FileOptions& o,
                             std::unique_ptr<FSSequentialFile>* r,
                             IODebugContext* d) override {
    if (!ZoneKind(f)) return target()->NewSequentialFile(AuxForRead(f), o, r, d);
    std::string b;
    IOStatus st = ExistingZoneFile(f, &b);
    if (st.ok()) r->reset(new ZoneSequentialFile(s_, b));
    return st;
  }
  IOStatus NewRandomAccessFile(const std::string& f, const FileOptions& o,
                               std::unique_ptr<FSRandomAccessFile>* r,
                               IODebugContext* d) override {
    if (!ZoneKind(f)) return target()->NewRandomAccessFile(AuxForRead(f), o, r, d);
    std::string b;
    IOStatus st = ExistingZoneFile(f, &b);
    if (st.ok()) r->reset(new ZoneRandomAccessFile(s_, b));
    return st;
  }
  IOStatus NewWritableFile(const std::string& f, const FileOptions& o,
                           std::unique_ptr<FSWritableFile>* r,
                           IODebugContext* d) override {
    int kind = ZoneKind(f);
    if (!kind) return target()->NewWritableFile(Aux(f), o, r, d);
    std::string b = BaseName(f);
    IOStatus noted = NoteDbDir(DirOf(f));
    if (!noted.ok()) return noted;
    uint64_t size;
    if (zl_fs_size(s_->fs(), b.c_str(), &size) == ZL_OK) {  // truncate = recreate
      ForgetCacheKeysOf(b);
      IOStatus st = ZlStatus(s_, zl_fs_delete(s_->fs(), b.c_str()), "delete " + b);
      if (!st.ok()) return st;
    }
    int level = kind == ZL_FILE_SST ? LevelAtSstCreation(b) : -1;
    IOStatus st = ZlStatus(s_, zl_fs_create(s_->fs(), b.c_str(), kind, level), "create " + b);
    if (!st.ok()) return st;
    if (kind == ZL_FILE_SST) AfterSstCreated(s_, b);
    r->reset(new ZoneWritableFile(s_, b, level >= 0 || kind != ZL_FILE_SST));
    return IOStatus::OK();
  }
  IOStatus ReopenWritableFile(const std::string& f, const FileOptions& o,
                              std::unique_ptr<FSWritableFile>* r,
                              IODebugContext* d) override {
    if (!ZoneKind(f)) return target()->ReopenWritableFile(Aux(f), o, r, d);
    return IOStatus::NotSupported("hhzs: zone files cannot be reopened for append: " + f);
  }
  IOStatus ReuseWritableFile(const std::string& f, const std::string& old,
                             const FileOptions& o, std::unique_ptr<FSWritableFile>* r,
                             IODebugContext* d) override {
    if (!ZoneKind(f)) return target()->ReuseWritableFile(Aux(f), Aux(old), o, r, d);
    IOStatus st = DeleteFile(old, o.io_options, d);
    if (!st.ok()) return st;
    return NewWritableFile(f, o, r, d);
  }
  IOStatus NewRandomRWFile(const std::string& f, const FileOptions& o,
                           std::unique_ptr<FSRandomRWFile>* r, IODebugContext* d) override {
    if (!ZoneKind(f)) return target()->NewRandomRWFile(Aux(f), o, r, d);
    return IOStatus::NotSupported("hhzs: zone files are append-only: " + f);
  }
  IOStatus NewDirectory(const std::string& n, const IOOptions& o,
                        std::unique_ptr<FSDirectory>* r, IODebugContext* d) override {
    target()->CreateDirIfMissing(Aux(n), o, d);
    return target()->NewDirectory(Aux(n), o, r, d);
  }
  IOStatus FileExists(const std::string& f, const IOOptions& o, IODebugContext* d) override {
    if (!ZoneKind(f)) return target()->FileExists(AuxForRead(f), o, d);
    uint64_t size;
    if (zl_fs_size(s_->fs(), BaseName(f).c_str(), &size) == ZL_OK) return IOStatus::OK();
    return IOStatus::NotFound();
  }
  IOStatus GetChildren(const std::string& dir, const IOOptions& o,
                       std::vector<std::string>* r, IODebugContext* d) override {
    r->clear();
    IOStatus st = target()->GetChildren(Aux(dir), o, r, d);
    bool db_dir = IsDbDir(dir);
    if (!st.ok() && !db_dir) return st;
    if (db_dir) {
      std::vector<std::string> names;
      if (!s_->List(&names)) return IOStatus::IOError("hhzs: zl_fs_list failed");
      r->insert(r->end(), names.begin(), names.end());
    }
    return IOStatus::OK();
  }
  IOStatus GetChildrenFileAttributes(const std::string& dir, const IOOptions& o,
                                     std::vector<FileAttributes>* r,
                                     IODebugContext* d) override {
    return FileSystem::GetChildrenFileAttributes(dir, o, r, d);  // via GetChildren/GetFileSize
  }
  IOStatus DeleteFile(const std::string& f, const IOOptions& o, IODebugContext* d) override {
    if (!ZoneKind(f)) return target()->DeleteFile(Aux(f), o, d);
    std::string b = BaseName(f);
    uint64_t size;
    if (zl_fs_size(s_->fs(), b.c_str(), &size) != ZL_OK)
      return IOStatus::PathNotFound("hhzs: no such file " + f);
    ForgetCacheKeysOf(b);
    ForgetSstRange(b);
    TraceHint("(delete " + b + ")");
    return ZlStatus(s_, zl_fs_delete(s_->fs(), b.c_str()), "delete " + b);
  }
  IOStatus Truncate(const std::string& f, size_t size, const IOOptions& o,
                    IODebugContext* d) override {
    if (!ZoneKind(f)) return target()->Truncate(Aux(f), size, o, d);
    return IOStatus::NotSupported("hhzs: zone files cannot be truncated");
  }
  IOStatus CreateDir(const std::string& n, const IOOptions& o, IODebugContext* d) override {
    return target()->CreateDir(Aux(n), o, d);
  }
  IOStatus CreateDirIfMissing(const std::string& n, const IOOptions& o,
                              IODebugContext* d) override {
    // Parents too: the aux tree mirrors absolute paths.
    std::string a = Aux(n), cur;
    for (size_t i = 1; i <= a.size(); i++) {
      if (i == a.size() || a[i] == '/') {
        IOStatus st = target()->CreateDirIfMissing(a.substr(0, i), o, d);
        if (!st.ok()) return st;
      }
    }
    return IOStatus::OK();
  }
  IOStatus DeleteDir(const std::string& n, const IOOptions& o, IODebugContext* d) override {
    return target()->DeleteDir(Aux(n), o, d);
  }
  IOStatus GetFileSize(const std::string& f, const IOOptions& o, uint64_t* size,
                       IODebugContext* d) override {
    if (!ZoneKind(f)) return target()->GetFileSize(AuxForRead(f), o, size, d);
    if (zl_fs_size(s_->fs(), BaseName(f).c_str(), size) != ZL_OK)
      return IOStatus::PathNotFound("hhzs: no such file " + f);
    return IOStatus::OK();
  }
  IOStatus GetFileModificationTime(const std::string& f, const IOOptions& o, uint64_t* t,
                                   IODebugContext* d) override {
    if (!ZoneKind(f)) return target()->GetFileModificationTime(AuxForRead(f), o, t, d);
    *t = 0;  // the store keeps no times; RocksDB uses this only for TTL/FIFO policies
    return FileExists(f, o, d);
  }
  IOStatus RenameFile(const std::string& s, const std::string& t, const IOOptions& o,
                      IODebugContext* d) override {
    int ks = ZoneKind(s), kt = ZoneKind(t);
    if (!ks && !kt) return target()->RenameFile(Aux(s), Aux(t), o, d);
    if (!ks || !kt) return IOStatus::NotSupported("hhzs: rename across stores: " + s + " -> " + t);
    ForgetCacheKeysOf(BaseName(s));
    ForgetCacheKeysOf(BaseName(t));
    return ZlStatus(s_, zl_fs_rename(s_->fs(), BaseName(s).c_str(), BaseName(t).c_str()),
                    "rename " + s);
  }
  IOStatus LinkFile(const std::string& s, const std::string& t, const IOOptions& o,
                    IODebugContext* d) override {
    if (!ZoneKind(s) && !ZoneKind(t)) return target()->LinkFile(Aux(s), Aux(t), o, d);
    return IOStatus::NotSupported("hhzs: zone files have no links");
  }
  IOStatus NumFileLinks(const std::string& f, const IOOptions& o, uint64_t* n,
                        IODebugContext* d) override {
    if (!ZoneKind(f)) return target()->NumFileLinks(Aux(f), o, n, d);
    *n = 1;
    return IOStatus::OK();
  }
  IOStatus AreFilesSame(const std::string& a, const std::string& b, const IOOptions& o,
                        bool* r, IODebugContext* d) override {
    if (!ZoneKind(a) && !ZoneKind(b)) return target()->AreFilesSame(Aux(a), Aux(b), o, r, d);
    *r = BaseName(a) == BaseName(b);
    return IOStatus::OK();
  }
  IOStatus LockFile(const std::string& f, const IOOptions& o, FileLock** l,
                    IODebugContext* d) override {
    return target()->LockFile(Aux(f), o, l, d);
  }
  IOStatus NewLogger(const std::string& f, const IOOptions& o, std::shared_ptr<Logger>* r,
                     IODebugContext* d) override {
    return target()->NewLogger(Aux(f), o, r, d);
  }
  IOStatus GetFreeSpace(const std::string& p, const IOOptions& o, uint64_t* r,
                        IODebugContext* d) override {
    return target()->GetFreeSpace(s_->aux_dir(), o, r, d);
  }
  IOStatus IsDirectory(const std::string& p, const IOOptions& o, bool* r,
                       IODebugContext* d) override {
    return target()->IsDirectory(AuxForRead(p), o, r, d);
  }

 private:
  // The directories whose listing includes the store's files (the DB and WAL dirs),
  // kept in <aux>/DBDIRS so a reopened process lists them too.
  std::string DbDirsFile() const { return s_->aux_dir() + "/DBDIRS"; }
  void LoadDbDirs() {
    std::ifstream in(DbDirsFile());
    std::string line;
    std::lock_guard<std::mutex> lock(mu_);
    while (std::getline(in, line))
      if (!line.empty()) db_dirs_.insert(line);
  }
  // The store names files by base name, so it holds one database: a WAL or SST in a
  // second directory is refused unless the store is empty (the old one was destroyed).
  IOStatus NoteDbDir(const std::string& dir) {
    std::string d = TrimSlash(dir);
    std::lock_guard<std::mutex> lock(mu_);
    if (db_dirs_.count(d)) return IOStatus::OK();
    if (!db_dirs_.empty()) {
      std::vector<std::string> names;
      if (!s_->List(&names)) return IOStatus::IOError("hhzs: zl_fs_list failed");
      if (!names.empty())
        return IOStatus::InvalidArgument("hhzs: the store of " + s_->config_path() +
                                         " holds the database in " + *db_dirs_.begin() +
                                         "; one database (and WAL dir) per store, not " + d);
      db_dirs_.clear();
    }
    db_dirs_.insert(d);
    std::ofstream out(DbDirsFile(), std::ios::trunc);
    out << d << "\n";
    out.flush();
    if (!out) return IOStatus::IOError("hhzs: cannot write " + DbDirsFile());
    return IOStatus::OK();
  }
  bool IsDbDir(const std::string& dir) {
    std::lock_guard<std::mutex> lock(mu_);
    return db_dirs_.count(TrimSlash(dir)) > 0;
  }

  Store* s_;
  std::mutex mu_;
  std::set<std::string> db_dirs_;
};

bool RegisterFileSystem() {
  ObjectLibrary::Default()->AddFactory<FileSystem>(
      ObjectLibrary::PatternEntry("hhzs", false).AddSeparator("://", true),
      [](const std::string& uri, std::unique_ptr<FileSystem>* guard, std::string* errmsg) {
        std::string config = uri.substr(std::string("hhzs://").size());
        Store* s = Store::Open(config, errmsg);
        if (!s) return static_cast<FileSystem*>(nullptr);
        guard->reset(new HhzsFileSystem(s));
        return guard->get();
      });
  return true;
}
const bool g_registered = RegisterFileSystem();

}  // namespace
}  // namespace hhzs
