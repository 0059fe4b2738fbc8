// Differential test of the query executor (executor.h) against the reference evaluator
// (reference_eval.h): random small graphs of a fixed schema loaded through the loader, random
// read queries generated as .gq text and compiled by the real compiler, results compared exactly
// (both order every result totally: order keys, then the ids of the bound entities). Between
// rounds of queries the graph changes (deletes and updates through mutations, appends and merges
// through the loader), so deletion vectors and multi-fragment tables are read too. Fixed seeds;
// OG_DIFF_LARGE=1 runs ten times more cases (ctest: engine.differential_large, label `large`);
// OG_DIFF_SEED=N shifts the seeds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <sstream>

#include "common/check.h"
#include "compiler/type_checker.h"
#include "engine/exec/executor.h"
#include "engine/exec/reference_eval.h"
#include "engine/load/loader.h"
#include "engine/mutate/mutation.h"
#include "io/memory_store.h"

namespace omnigraph::engine {
namespace {

constexpr const char* kSchema = R"(
node Person { name: String @key, age: I32?, score: F64?, nick: String?, tags: [String]?, active: Bool?, born: Date? }
node Company { name: String @key, size: I64? }
node City { label: String @key, pop: U32? }
edge Knows: Person -> Person { since: I64?, w: F64? }
edge WorksAt: Person -> Company { role: String? }
edge Road: City -> City { len: I32? }
)";

struct Prop {
  std::string name;
  std::string kind;  // int, float, string, list, key
};

struct TypeDef {
  std::string name, prefix;
  std::vector<Prop> props;
};

const std::vector<TypeDef>& NodeTypes() {
  static const std::vector<TypeDef> t = {
      {"Person",
       "p",
       {{"name", "key"},
        {"age", "int"},
        {"score", "float"},
        {"nick", "string"},
        {"tags", "list"},
        {"active", "bool"},
        {"born", "date"}}},
      {"Company", "c", {{"name", "key"}, {"size", "bigint"}}},
      {"City", "x", {{"label", "key"}, {"pop", "uint"}}},
  };
  return t;
}

struct EdgeDef {
  std::string name, word, from, to;
  std::vector<Prop> props;
};

const std::vector<EdgeDef>& EdgeTypes() {
  static const std::vector<EdgeDef> e = {
      {"Knows", "knows", "Person", "Person", {{"since", "int"}, {"w", "float"}}},
      {"WorksAt", "worksAt", "Person", "Company", {{"role", "string"}}},
      {"Road", "road", "City", "City", {{"len", "int"}}},
  };
  return e;
}

const TypeDef& NodeType(const std::string& name) {
  for (const auto& t : NodeTypes()) {
    if (t.name == name) return t;
  }
  return NodeTypes()[0];
}

class Gen {
 public:
  explicit Gen(uint32_t seed) : rng_(seed) {}
  int Int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool Chance(int percent) { return Int(0, 99) < percent; }
  template <typename T>
  const T& Pick(const std::vector<T>& v) {
    return v[static_cast<size_t>(Int(0, static_cast<int>(v.size()) - 1))];
  }

  std::string Str() { return Pick(std::vector<std::string>{"ann", "anna", "bob", "", "nab", "b"}); }
  std::string Lit(const std::string& kind) {
    if (kind == "int" || kind == "bigint") return std::to_string(Int(0, 6));
    if (kind == "uint") return std::to_string(Int(0, 6));
    if (kind == "float") return std::to_string(Int(0, 8) / 4) + "." + std::to_string(Int(0, 1) * 5);
    if (kind == "bool") return Chance(50) ? "true" : "false";
    if (kind == "date") return Chance(50) ? "date(\"" + Date() + "\")" : "\"" + Date() + "\"";
    return "\"" + Str() + "\"";
  }
  std::string Date() { return "2020-01-0" + std::to_string(Int(1, 6)); }

  // NDJSON of new nodes (named from `next` on, which advances) and edges among the `live` node
  // keys and the new ones; `live` receives the new keys. With `merge`, also new values for some
  // live nodes (a merge-mode load updates them).
  std::string Data(std::map<std::string, int>* next, std::map<std::string, std::vector<std::string>>* live,
                   bool merge) {
    std::ostringstream o;
    auto node = [&](const TypeDef& t, const std::string& key) {
      o << R"({"type":")" << t.name << R"(","data":{")" << t.props[0].name << R"(":")" << key << '"';
      for (size_t p = 1; p < t.props.size(); ++p) {
        if (Chance(30)) continue;  // null
        o << ",\"" << t.props[p].name << "\":" << JsonValue(t.props[p].kind);
      }
      o << "}}\n";
    };
    for (const auto& t : NodeTypes()) {
      auto& names = (*live)[t.name];
      int& next_key = (*next)[t.name];
      if (merge) {
        for (const auto& key : names) {
          if (Chance(30)) node(t, key);
        }
      }
      int n = Int(0, t.name == "Person" ? (merge ? 4 : 10) : (merge ? 2 : 5));
      for (int i = 0; i < n; ++i) {
        std::string key = t.prefix + std::to_string(next_key++);
        node(t, key);
        names.push_back(key);
      }
    }
    for (const auto& e : EdgeTypes()) {
      const auto& from = (*live)[e.from];
      const auto& to = (*live)[e.to];
      if (from.empty() || to.empty()) continue;
      int m = Int(0, static_cast<int>(from.size()) * (merge ? 1 : 2));
      for (int i = 0; i < m; ++i) {
        o << R"({"edge":")" << e.name << R"(","from":")" << Pick(from) << R"(","to":")" << Pick(to) << R"(","data":{)";
        bool first = true;
        for (const auto& p : e.props) {
          if (Chance(30)) continue;
          o << (first ? "" : ",") << '"' << p.name << "\":" << JsonValue(p.kind);
          first = false;
        }
        o << "}}\n";
      }
    }
    return o.str();
  }

  // One mutation query that deletes or updates rows (no inserts: the loader appends those).
  std::string Mutation() {
    switch (Int(0, 5)) {
      case 0:
        return "query m() { delete Person where age " + Pick(std::vector<std::string>{"<", "=", ">="}) + " " +
               Lit("int") + " }";
      case 1: return "query m() { delete Person where name = \"p" + std::to_string(Int(0, 12)) + "\" }";
      case 2:
        return "query m() { delete Knows where since " + Pick(std::vector<std::string>{"<", "="}) + " " + Lit("int") +
               " }";
      case 3: return "query m() { delete City where pop > " + Lit("uint") + " }";
      case 4:
        return "query m() { update Person set { age: " + Lit("int") + ", active: " + Lit("bool") + ", born: \"" +
               Date() + "\" } where nick = " + Lit("string") + " }";
      default: return "query m() { update Company set { size: " + Lit("int") + " } where size <= " + Lit("int") + " }";
    }
  }

  std::string JsonValue(const std::string& kind) {
    if (kind == "int" || kind == "uint") return std::to_string(Int(0, 6));
    if (kind == "float") return Chance(10) ? "-0.0" : std::to_string(Int(-2, 12) * 0.25);
    if (kind == "bool") return Chance(50) ? "true" : "false";
    if (kind == "date") return "\"" + Date() + "\"";
    if (kind == "bigint") return Chance(20) ? "9223372036854775807" : std::to_string(Int(-3, 6));
    if (kind == "list") {
      std::string s = "[";
      int n = Int(0, 2);
      for (int i = 0; i < n; ++i)
        s += std::string(i ? "," : "") + "\"" + Pick(std::vector<std::string>{"a", "b", "c"}) + "\"";
      return s + "]";
    }
    return "\"" + Str() + "\"";
  }

  struct Var {
    std::string name, type;
    bool edge = false;
  };

  // One random read query.
  std::string Query(const std::map<std::string, int>& counts) {
    if (Chance(15)) return PathQuery(counts);
    vars_.clear();
    next_ = 0;
    std::vector<std::string> clauses;
    const auto& start = Pick(NodeTypes());
    clauses.push_back(Binding(NewVar(start.name), start, counts));
    int steps = Int(0, 3);
    for (int s = 0; s < steps; ++s) {
      int what = Int(0, 9);
      if (what <= 5)
        clauses.push_back(Traversal());
      else if (what == 6) {
        const auto& t = Pick(NodeTypes());
        clauses.push_back(Binding(NewVar(t.name), t, counts));
      } else if (what <= 8) {
        clauses.push_back(Filter());
      } else {
        clauses.push_back(Negation());
      }
    }
    if (Chance(40)) clauses.push_back(Filter());
    // Filters and negations may precede the clauses that bind their variables.
    if (clauses.size() > 1 && Chance(25)) {
      const std::string& last = clauses.back();
      if (last.rfind("not ", 0) == 0 || last.find(": ") == std::string::npos) {
        std::rotate(clauses.begin(), clauses.end() - 1, clauses.end());
      }
    }
    std::ostringstream q;
    q << "query q($pn: String) { match { ";
    for (const auto& c : clauses) q << c << ' ';
    q << "} return { ";
    std::vector<std::string> aliases, agg_exprs;
    bool agg = Chance(30);
    int np = Int(1, 3);
    std::vector<std::string> node_vars;
    for (const auto& v : vars_) {
      if (!v.edge) node_vars.push_back(v.name);
    }
    for (int i = 0; i < np; ++i) {
      const Var& v = Pick(vars_);
      std::string expr;
      if (!v.edge && Chance(25))
        expr = "$" + v.name;
      else
        expr = "$" + v.name + "." + Pick(Props(v)).name;
      if (agg && (i == 0 || Chance(50))) {
        std::string fn = Pick(std::vector<std::string>{"count", "sum", "avg", "min", "max"});
        if (fn == "sum" || fn == "avg") expr = "$" + v.name + "." + NumericProp(v);
        if (fn == "count" && Chance(50)) expr = "$" + Pick(node_vars);
        if (expr.find('.') == std::string::npos && fn != "count") fn = "count";
        expr = fn + "(" + expr + ")";
      }
      std::string alias = "a" + std::to_string(i);
      q << expr << " as " << alias << ", ";
      aliases.push_back(alias);
      if (expr.find('(') != std::string::npos) agg_exprs.push_back(expr);
    }
    q << "}";
    if (Chance(60)) {
      q << " order { ";
      int no = Int(1, 2);
      for (int i = 0; i < no; ++i) {
        if (agg && Chance(40)) {  // an aggregate: one the projections compute, or another one
          if (!agg_exprs.empty() && Chance(50)) {
            q << Pick(agg_exprs);
          } else {
            const Var& v = Pick(vars_);
            std::string fn = Pick(std::vector<std::string>{"count", "sum", "min", "max", "avg"});
            q << fn << "($" << v.name << (fn == "count" ? "" : "." + NumericProp(v)) << ")";
          }
        } else if (agg || Chance(50))
          q << Pick(aliases);
        else {
          const Var& v = Pick(vars_);
          q << "$" << v.name << "." << Pick(Props(v)).name;
        }
        q << (Chance(50) ? " desc" : "") << (i + 1 < no ? ", " : " ");
      }
      q << "}";
    }
    if (Chance(50)) q << " limit " << Int(1, 5);
    q << " }";
    return q.str();
  }

  // A chain of traversals from one binding, each into a new variable, aggregated so that inner
  // variables are only counted (the executor counts such chains per end node: PathCounts).
  std::string PathQuery(const std::map<std::string, int>& counts) {
    vars_.clear();
    next_ = 0;
    const auto& start = NodeType(Pick(std::vector<std::string>{"Person", "Person", "City", "Company"}));
    std::ostringstream q;
    q << "query q($pn: String) { match { " << Binding(NewVar(start.name), start, counts) << ' ';
    const int links = Int(1, 3);
    for (int k = 0; k < links; ++k) {
      const Var from = vars_.back();
      std::vector<const EdgeDef*> options;
      for (const auto& e : EdgeTypes()) {
        if (e.from == from.type || e.to == from.type) options.push_back(&e);
      }
      const EdgeDef& e = *Pick(options);
      const bool forward = e.from == from.type && (e.to != from.type || Chance(70));
      const std::string to = "$" + NewVar(forward ? e.to : e.from);
      std::string word = e.from == e.to && Chance(20) ? "<" + e.word + ">" : e.word;
      if (Chance(30)) {
        const int lo = Int(0, 2);
        word += "{" + std::to_string(lo) + "," + (Chance(20) ? "" : std::to_string(lo + Int(0, 2))) + "}";
      }
      q << (forward ? "$" + from.name : to) << ' ' << word << ' ' << (forward ? to : "$" + from.name) << ' ';
    }
    if (Chance(10)) q << Filter() << ' ';  // usually disables the plan: the general one must agree
    const Var& first = vars_.front();
    const Var& end = vars_.back();
    q << "} return { ";
    const int key = Int(0, 9);
    if (key <= 4)
      q << "$" << end.name << "." << Pick(Props(end)).name << " as k, ";
    else if (key <= 6)
      q << "$" << end.name << " as k, ";
    else if (key == 7)
      q << "$" << first.name << "." << Pick(Props(first)).name << " as k, ";
    q << "count($" << Pick(vars_).name << ") as n";
    if (Chance(40)) {
      const std::string fn = Pick(std::vector<std::string>{"sum", "avg", "min", "max", "count"});
      q << ", " << fn << "($" << end.name << "." << NumericProp(end) << ") as m";
    }
    q << " }";
    if (Chance(40)) q << " order { n" << (Chance(50) ? " desc" : "") << " }";
    if (Chance(30)) q << " limit " << Int(1, 4);
    q << " }";
    return q.str();
  }

 private:
  std::vector<Prop> Props(const Var& v) {
    if (v.edge) {
      for (const auto& e : EdgeTypes()) {
        if (e.name == v.type) {
          auto p = e.props;
          p.push_back({"id", "string"});
          return p;
        }
      }
    }
    auto p = NodeType(v.type).props;
    p.push_back({"id", "string"});
    return p;
  }
  std::string NumericProp(const Var& v) {
    for (const auto& p : Props(v)) {
      if (p.kind == "int" || p.kind == "float" || p.kind == "uint" || p.kind == "bigint") return p.name;
    }
    return "id";  // not numeric: the type checker rejects it, the case is skipped
  }
  std::string NewVar(const std::string& type, bool edge = false) {
    std::string name = (edge ? "e" : "v") + std::to_string(next_++);
    vars_.push_back({name, type, edge});
    return name;
  }
  std::string Binding(const std::string& var, const TypeDef& t, const std::map<std::string, int>& counts) {
    std::string s = "$" + var + ": " + t.name;
    if (Chance(40)) {
      const Prop& p = Pick(t.props);
      std::string value;
      if (p.kind == "key") {
        value = Chance(20) && t.name == "Person"
                    ? "$pn"
                    : "\"" + t.prefix + std::to_string(Int(0, std::max(0, counts.at(t.name)))) + "\"";
      } else if (p.kind == "list") {
        return s;
      } else {
        value = Lit(p.kind);
      }
      s += " { " + p.name + ": " + value + " }";
    }
    return s;
  }
  std::string Traversal() {
    std::vector<Var> nodes;
    for (const auto& v : vars_) {
      if (!v.edge) nodes.push_back(v);
    }
    const Var a = Pick(nodes);
    std::vector<const EdgeDef*> options;
    for (const auto& e : EdgeTypes()) {
      if (e.from == a.type || e.to == a.type) options.push_back(&e);
    }
    const EdgeDef& e = *Pick(options);
    bool a_is_src = e.from == a.type && (e.to != a.type || Chance(60));
    const std::string other_type = a_is_src ? e.to : e.from;
    std::string other;
    std::vector<Var> same;
    for (const auto& v : nodes) {
      if (v.type == other_type) same.push_back(v);
    }
    if (!same.empty() && Chance(20))
      other = "$" + Pick(same).name;
    else if (Chance(15))
      other = "$_";
    else
      other = "$" + NewVar(other_type);
    std::string src = a_is_src ? "$" + a.name : other, dst = a_is_src ? other : "$" + a.name;
    bool undirected = e.from == e.to && Chance(25);
    std::string word = undirected ? "<" + e.word + ">" : e.word;
    int mode = Int(0, 9);
    if (mode <= 2 && src != dst) {
      return src + " $" + NewVar(e.name, true) + ":" + word + " " + dst;
    }
    if (mode <= 5) {
      int lo = Int(0, 2);
      std::string hi = Chance(25) ? "" : std::to_string(lo + Int(0, 2));
      return src + " " + word + "{" + std::to_string(lo) + "," + hi + "} " + dst;
    }
    return src + " " + word + " " + dst;
  }
  std::string Operand(const Var& v, const Prop& p) { return "$" + v.name + "." + p.name; }
  std::string Filter() {
    const Var& v = Pick(vars_);
    auto props = Props(v);
    const Prop& p = Pick(props);
    std::string kind = p.kind == "key" ? "string" : p.kind;
    std::string lhs = Operand(v, p);
    if (kind == "list") return lhs + " contains \"" + Pick(std::vector<std::string>{"a", "b", "c", "d"}) + "\"";
    std::vector<std::string> ops{"=", "!=", "<", "<=", ">", ">="};
    if (kind == "string") {
      ops.push_back("contains");
      ops.push_back("starts_with");
    }
    if (kind == "bool") ops = {"=", "!="};
    std::string op = Pick(ops);
    std::string rhs = p.name == "id" && Chance(50) ? "\"" + NodeOrEdgeId(v) + "\"" : Lit(kind);
    // Another variable's property of the same kind, sometimes.
    for (int tries = 0; tries < 3 && Chance(30); ++tries) {
      const Var& w = Pick(vars_);
      for (const auto& q : Props(w)) {
        std::string qk = q.kind == "key" ? "string" : q.kind;
        if (qk == kind && w.name != v.name) return lhs + " " + op + " " + Operand(w, q);
      }
    }
    if (Chance(20) && op != "contains" && op != "starts_with") return rhs + " " + op + " " + lhs;
    if (Chance(10) && op == "contains") return rhs + " contains " + lhs;
    return lhs + " " + op + " " + rhs;
  }
  std::string NodeOrEdgeId(const Var& v) {
    if (v.edge) return "nope";
    return NodeType(v.type).prefix + std::to_string(Int(0, 4));
  }
  std::string Negation() {
    std::vector<Var> nodes;
    for (const auto& v : vars_) {
      if (!v.edge) nodes.push_back(v);
    }
    const Var a = Pick(nodes);
    std::vector<const EdgeDef*> options;
    for (const auto& e : EdgeTypes()) {
      if (e.from == a.type) options.push_back(&e);
    }
    std::string inner = "n" + std::to_string(next_++);
    if (options.empty()) return "not { $" + a.name + ".id = \"" + NodeOrEdgeId(a) + "\" }";
    const EdgeDef& e = *Pick(options);
    std::string s = "not { $" + a.name + " " + e.word + " $" + inner;
    const auto& t = NodeType(e.to);
    if (Chance(50)) {
      const Prop& p = t.props[static_cast<size_t>(Int(1, static_cast<int>(t.props.size()) - 1))];
      if (p.kind != "list") s += " $" + inner + "." + p.name + " > " + Lit(p.kind);
    }
    return s + " }";
  }

  std::mt19937 rng_;
  std::vector<Var> vars_;
  int next_ = 0;
};

std::string RowText(const std::vector<Value>& row) {
  std::string s;
  for (const auto& v : row) s += (v.is_null() ? std::string("NULL") : v.type().ToString() + ":" + v.ToString()) + " | ";
  return s;
}

struct Stats {
  int compiled = 0, skipped = 0, nonempty = 0, errors = 0, mutations = 0;
};

// Runs `queries` random queries on the head of `graph`; both evaluators must agree.
void CheckQueries(Gen& gen, Graph& graph, const std::map<std::string, int>& counts, int queries, GraphReadCache* cache,
                  const std::string& context, Stats* stats) {
  auto snap = graph.Head();
  ASSERT_TRUE(snap.ok());
  const bool verbose = std::getenv("OG_DIFF_VERBOSE") != nullptr;
  for (int i = 0; i < queries; ++i) {
    std::string src = gen.Query(counts);
    auto qs = compiler::CompileQueries(snap->catalog(), src);
    if (!qs.ok()) {
      ++stats->skipped;
      if (verbose) std::printf("skipped: %s\n  %s\n", src.c_str(), qs.status().ToString().c_str());
      continue;
    }
    if (verbose) std::printf("query: %s\n", src.c_str());
    ++stats->compiled;
    compiler::ParamValues params{{"pn", Value::String("p" + std::to_string(gen.Int(0, 3)))}};
    const int64_t now = 1700000000000;
    auto want = EvaluateReference(*snap, qs->front(), params, now);
    auto got = ExecuteQuery(*snap, qs->front(), params, now, cache);
    ASSERT_EQ(want.ok(), got.ok()) << src << "\nreference: " << want.status().ToString()
                                   << "\nexecutor: " << got.status().ToString() << "\n"
                                   << context;
    if (!want.ok()) {
      EXPECT_EQ(want.status().code_string(), got.status().code_string()) << src;
      ++stats->errors;
      continue;
    }
    ASSERT_EQ(want->columns, got->columns) << src;
    std::string diff;
    if (want->rows.size() != got->rows.size()) diff = "row counts differ";
    for (size_t r = 0; diff.empty() && r < want->rows.size(); ++r) {
      if (RowText(want->rows[r]) != RowText(got->rows[r])) diff = "row " + std::to_string(r) + " differs";
    }
    if (!diff.empty()) {
      std::string w, o;
      for (const auto& r : want->rows) w += RowText(r) + "\n";
      for (const auto& r : got->rows) o += RowText(r) + "\n";
      FAIL() << diff << "\nquery: " << src << "\n" << context << "\nreference:\n" << w << "executor:\n" << o;
    }
    if (!want->rows.empty()) ++stats->nonempty;
  }
}

// The live keys of every node type at the head (through the reference evaluator).
std::map<std::string, std::vector<std::string>> LiveKeys(Graph& graph) {
  std::map<std::string, std::vector<std::string>> live;
  auto snap = graph.Head();
  OG_CHECK(snap.ok());
  for (const auto& t : NodeTypes()) {
    auto qs = compiler::CompileQueries(
        snap->catalog(), "query k() { match { $x: " + t.name + " } return { $x." + t.props[0].name + " } }");
    OG_CHECK(qs.ok());
    auto r = EvaluateReference(*snap, qs->front(), {}, 0);
    OG_CHECK(r.ok());
    for (const auto& row : r->rows) live[t.name].push_back(row[0].string_value());
  }
  return live;
}

// Per graph: a load, then rounds of queries separated by changes (a delete or update mutation,
// then an append or merge load), so later rounds read deletion vectors and several fragments.
void RunCases(uint32_t seed, int graphs, int queries_per_graph, Stats* stats) {
  Gen gen(seed);
  constexpr int kRounds = 3;
  for (int g = 0; g < graphs; ++g) {
    auto graph = Graph::Init(std::make_shared<io::MemoryStore>(), kSchema);
    ASSERT_TRUE(graph.ok()) << graph.status().ToString();
    std::map<std::string, int> next;
    std::map<std::string, std::vector<std::string>> live;
    std::string context = "seed " + std::to_string(seed) + " graph " + std::to_string(g) + "\ndata:\n";
    GraphReadCache cache;
    for (int round = 0; round < kRounds; ++round) {
      if (round > 0) {
        std::string m = gen.Mutation();
        auto mr = RunMutation(**graph, m, "", MutationOptions{});
        ASSERT_TRUE(mr.ok()) << m << "\n" << mr.status().ToString();
        if (mr->write.committed) ++stats->mutations;
        context += "mutation: " + m + "\n";
        live = LiveKeys(**graph);
      }
      const bool merge = round > 0 && gen.Chance(50);
      std::string data = gen.Data(&next, &live, merge);
      if (!data.empty()) {
        LoadOptions o;
        o.mode = merge ? LoadMode::kMerge : LoadMode::kAppend;
        auto r = LoadNdjson(**graph, data, o);
        ASSERT_TRUE(r.ok()) << r.status().ToString() << "\n" << data;
        context += std::string(merge ? "load merge:\n" : "load append:\n") + data;
      }
      CheckQueries(gen, **graph, next, queries_per_graph / kRounds, &cache, context, stats);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

int Scale() {
  const char* e = std::getenv("OG_DIFF_LARGE");
  return e != nullptr && std::string(e) == "1" ? 10 : 1;
}

TEST(EngineDifferential, RandomGraphsAndQueries) {
  Stats stats;
  const char* base = std::getenv("OG_DIFF_SEED");  // another fixed seed family, for exploration
  const uint32_t offset = base != nullptr ? static_cast<uint32_t>(std::strtoul(base, nullptr, 10)) : 0;
  for (uint32_t seed : {1u, 2u, 3u}) {
    RunCases(seed * 7919u + offset, 10 * Scale(), 30, &stats);
    if (HasFatalFailure()) return;
  }
  // The generator must mostly produce valid, non-trivial queries, or the test proves nothing.
  EXPECT_GT(stats.compiled, 500) << "skipped " << stats.skipped;
  EXPECT_GT(stats.nonempty, stats.compiled / 4);
  EXPECT_GT(stats.mutations, 10 * Scale());  // later rounds really read changed graphs
  std::printf("differential: %d compiled, %d skipped, %d non-empty, %d errors (both), %d mutations\n", stats.compiled,
              stats.skipped, stats.nonempty, stats.errors, stats.mutations);
}

}  // namespace
}  // namespace omnigraph::engine
