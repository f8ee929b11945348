// hhzs_stat — prints what a run on `hhzs://` did, from the JSON the plugin writes at exit
// to $HHZS_STATS_JSON ({"store": zl_fs_stats_json, "plugin": plugin counters}): the
// hint counts, each device's files and bytes, and the SSTs per device and level.
// `--require k1,k2` exits 1 if any of those hint counts is zero (smoke test).
//
//   hhzs_stat STATS.json [--require flush,compaction_begin,...]
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

// A minimal JSON value: enough for zl_fs_stats_json.
struct J {
  enum T { Null, Bool, Num, Str, Arr, Obj } t = Null;
  double num = 0;
  std::string str;
  std::vector<J> arr;
  std::vector<std::pair<std::string, J>> obj;
  const J* Get(const std::string& k) const {
    for (auto& kv : obj)
      if (kv.first == k) return &kv.second;
    return nullptr;
  }
  std::string Text() const {
    if (t == Str) return str;
    if (t == Num) {
      std::ostringstream o;
      o << static_cast<long long>(num);
      return o.str();
    }
    if (t == Bool) return num ? "true" : "false";
    return "-";
  }
};

struct Parser {
  const std::string& s;
  size_t i = 0;
  bool ok = true;
  void Ws() { while (i < s.size() && isspace(static_cast<unsigned char>(s[i]))) i++; }
  std::string Str() {
    std::string r;
    i++;  // opening quote
    while (i < s.size() && s[i] != '"') {
      if (s[i] == '\\' && i + 1 < s.size()) {
        i++;
        if (s[i] == 'u') { r += '?'; i += 4; } else r += s[i] == 'n' ? '\n' : s[i];
      } else {
        r += s[i];
      }
      i++;
    }
    i++;
    return r;
  }
  J Val() {
    J v;
    Ws();
    if (i >= s.size()) { ok = false; return v; }
    char c = s[i];
    if (c == '{') {
      v.t = J::Obj; i++; Ws();
      if (s[i] == '}') { i++; return v; }
      while (ok) {
        Ws();
        if (s[i] != '"') { ok = false; break; }
        std::string k = Str();
        Ws();
        if (s[i++] != ':') { ok = false; break; }
        v.obj.emplace_back(k, Val());
        Ws();
        if (s[i] == ',') { i++; continue; }
        if (s[i] == '}') { i++; break; }
        ok = false;
      }
    } else if (c == '[') {
      v.t = J::Arr; i++; Ws();
      if (s[i] == ']') { i++; return v; }
      while (ok) {
        v.arr.push_back(Val());
        Ws();
        if (s[i] == ',') { i++; continue; }
        if (s[i] == ']') { i++; break; }
        ok = false;
      }
    } else if (c == '"') {
      v.t = J::Str; v.str = Str();
    } else if (s.compare(i, 4, "null") == 0) {
      i += 4;
    } else if (s.compare(i, 4, "true") == 0) {
      v.t = J::Bool; v.num = 1; i += 4;
    } else if (s.compare(i, 5, "false") == 0) {
      v.t = J::Bool; i += 5;
    } else {
      size_t end = i;
      while (end < s.size() && std::string("+-0123456789.eE").find(s[end]) != std::string::npos) end++;
      if (end == i) { ok = false; return v; }
      v.t = J::Num; v.num = std::stod(s.substr(i, end - i)); i = end;
    }
    return v;
  }
};

// First object (depth-first) that has key `k`.
const J* FindObjWith(const J& v, const std::string& k) {
  if (v.t == J::Obj) {
    if (v.Get(k)) return &v;
    for (auto& kv : v.obj)
      if (auto r = FindObjWith(kv.second, k)) return r;
  } else if (v.t == J::Arr) {
    for (auto& e : v.arr)
      if (auto r = FindObjWith(e, k)) return r;
  }
  return nullptr;
}

// First array (depth-first) whose first element is an object with key `k`.
const J* FindArrOf(const J& v, const std::string& k) {
  if (v.t == J::Arr && !v.arr.empty() && v.arr[0].t == J::Obj && v.arr[0].Get(k)) return &v;
  if (v.t == J::Obj)
    for (auto& kv : v.obj)
      if (auto r = FindArrOf(kv.second, k)) return r;
  if (v.t == J::Arr)
    for (auto& e : v.arr)
      if (auto r = FindArrOf(e, k)) return r;
  return nullptr;
}

void PrintObj(const char* title, const J* o) {
  std::printf("%s:", title);
  if (!o) { std::printf(" (none)\n"); return; }
  for (auto& kv : o->obj) std::printf(" %s=%s", kv.first.c_str(), kv.second.Text().c_str());
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: hhzs_stat STATS.json [--require k1,k2,...]\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::fprintf(stderr, "hhzs_stat: cannot read %s\n", argv[1]);
    return 2;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  Parser p{text};
  J root = p.Val();
  if (!p.ok || root.t != J::Obj) {
    std::fprintf(stderr, "hhzs_stat: %s is not the JSON the plugin writes\n", argv[1]);
    return 2;
  }
  const J* store = root.Get("store");
  if (!store || store->t != J::Obj) {
    std::fprintf(stderr, "hhzs_stat: %s has no store statistics\n", argv[1]);
    return 1;
  }
  const J* hints = FindObjWith(*store, "compaction_begin");
  if (const J* pol = store->Get("policy")) std::printf("policy: %s\n", pol->Text().c_str());
  PrintObj("store hint counts", hints);
  PrintObj("plugin counters", root.Get("plugin"));
  if (const J* devs = FindArrOf(*store, "live_bytes")) {
    for (auto& d : devs->arr) PrintObj("device", &d);
  }
  // SSTs per (device, level), WALs per device.
  std::map<std::string, std::map<std::string, int>> grid;
  if (const J* files = FindArrOf(*store, "kind")) {
    for (auto& f : files->arr) {
      const J* dev = f.Get("device");
      const J* kind = f.Get("kind");
      const J* level = f.Get("level");
      std::string col = (kind ? kind->Text() : "?");
      if (col == "sst" || col == "2" || col == "SST") col = "L" + (level ? level->Text() : "?");
      grid[dev ? dev->Text() : "?"][col]++;
    }
  }
  for (auto& row : grid) {
    std::printf("files on %s:", row.first.c_str());
    for (auto& c : row.second) std::printf(" %s=%d", c.first.c_str(), c.second);
    std::printf("\n");
  }
  int rc = 0;
  const J* plugin = root.Get("plugin");
  const J* errors = plugin ? plugin->Get("store_errors") : nullptr;
  if (errors && errors->num > 0) {
    std::fprintf(stderr, "hhzs_stat: %s zl_fs_* calls failed during the run\n",
                 errors->Text().c_str());
    rc = 1;
  }
  for (int i = 2; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) != "--require") continue;
    std::stringstream req(argv[i + 1]);
    std::string k;
    while (std::getline(req, k, ',')) {
      const J* v = hints ? hints->Get(k) : nullptr;
      if (!v || v->num <= 0) {
        std::fprintf(stderr, "hhzs_stat: hint count `%s` is %s (required > 0)\n", k.c_str(),
                     v ? v->Text().c_str() : "absent");
        rc = 1;
      }
    }
  }
  return rc;
}
