// A restricted unpickler: interprets, never executes, the handful of opcodes and globals numpy
// uses to pickle an object array of int lists.
#include "mirror/data/pickle.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <unordered_map>

#include "mirror/util/error.h"
#include "pickle_values.h"

namespace mirror {

// Internal, named rather than anonymous (a unity build puts this file beside others in one unit).
namespace pickle_internal {

class Unpickler {
 public:
  Unpickler(const std::string& data, const std::string& what, int64_t max_ints)
      : data_(data), what_(what), max_ints_(max_ints) {}

  PickledObjectArray run() {
    for (;;) {
      const size_t at = pos_;
      const auto op = static_cast<unsigned char>(byte());
      if (op == '.') break;
      dispatch(op, at);
    }
    if (stack_.size() != 1) fail(fmt::format("the pickle ends with {} values on its stack, expected 1", stack_.size()));
    Value& v = stack_.back();
    if (v.kind != Kind::kNdArray || !v.built) fail(fmt::format("the pickle holds a {}, not a numpy array", kind_name(v.kind)));
    if (!v.object_dtype) fail("the array is not an object array");
    PickledObjectArray out;
    out.shape = v.shape;
    int64_t expected = 1;
    for (int64_t d : v.shape) expected *= d;
    const auto& items = v.list->objects;
    if (!v.list->ints.empty() || static_cast<int64_t>(items.size()) != expected)
      fail(fmt::format("the array's shape holds {} items but its data has {}", expected,
                       items.size() + v.list->ints.size()));
    out.items.reserve(items.size());
    for (size_t k = 0; k < items.size(); ++k) {
      const Value& item = items[k];
      if (item.kind != Kind::kList)
        fail(fmt::format("item {} is a {}, expected a list of ints", k, kind_name(item.kind)));
      if (!item.list->objects.empty())
        fail(fmt::format("item {} holds a {}, expected only ints", k, kind_name(item.list->objects.front().kind)));
      out.items.push_back(item.list->ints);
    }
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw DataError(fmt::format("{}: {} (at byte {} of the pickle)", what_, why, pos_));
  }
  void need(uint64_t n) const {
    if (n > data_.size() - pos_)
      fail(fmt::format("a length of {} bytes runs past the end of the data ({} bytes left)", n, data_.size() - pos_));
  }
  char byte() {
    need(1);
    return data_[pos_++];
  }
  uint64_t le(int bytes) {
    need(static_cast<uint64_t>(bytes));
    uint64_t v = 0;
    for (int k = 0; k < bytes; ++k) v |= static_cast<uint64_t>(static_cast<unsigned char>(data_[pos_ + k])) << (8 * k);
    pos_ += static_cast<size_t>(bytes);
    return v;
  }
  std::string take(uint64_t n) {
    need(n);
    std::string s = data_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  std::string line() {
    const size_t end = data_.find('\n', pos_);
    if (end == std::string::npos || end - pos_ > 256) fail("an unterminated text argument");
    std::string s = data_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return s;
  }
  Value pop() {
    if (stack_.empty()) fail("stack underflow");
    Value v = std::move(stack_.back());
    stack_.pop_back();
    if (v.kind == Kind::kMark) fail("a value was expected, found a mark");
    return v;
  }
  Value& top() {
    if (stack_.empty() || stack_.back().kind == Kind::kMark) fail("stack underflow");
    return stack_.back();
  }
  // Values pushed since the last MARK, which is removed.
  std::vector<Value> pop_to_mark() {
    size_t k = stack_.size();
    while (k > 0 && stack_[k - 1].kind != Kind::kMark) --k;
    if (k == 0) fail("no mark on the stack");
    std::vector<Value> items(std::make_move_iterator(stack_.begin() + static_cast<long>(k)),
                             std::make_move_iterator(stack_.end()));
    stack_.resize(k - 1);
    return items;
  }
  void push_int(int64_t v) {
    Value x;
    x.kind = Kind::kInt;
    x.i = v;
    stack_.push_back(std::move(x));
  }
  void push_string(Kind kind, std::string s) {
    Value x;
    x.kind = kind;
    x.s = std::move(s);
    stack_.push_back(std::move(x));
  }
  // Every tuple and list costs an opcode byte; this bounds them far below what a file of many
  // megabytes could otherwise make (each keeps some 100-150 bytes until the end: at most about
  // half a gigabyte; Reuters has 11,228 lists).
  void count_container() {
    if (++containers_ > kMaxContainers)
      fail(fmt::format("more than {} tuples and lists: the file is not a plausible dataset", kMaxContainers));
  }
  void push_tuple(std::vector<Value> items) {
    count_container();
    Value x;
    x.kind = Kind::kTuple;
    x.tuple = &tuples_.emplace_back(std::move(items));
    stack_.push_back(std::move(x));
  }
  Value new_list() {
    count_container();
    Value l;
    l.kind = Kind::kList;
    l.list = &lists_.emplace_back();
    return l;
  }
  void append(Value& list, std::vector<Value> items) {
    if (list.kind != Kind::kList) fail(fmt::format("APPEND to a {}", kind_name(list.kind)));
    for (auto& v : items) {
      if (v.kind == Kind::kInt && list.list->objects.empty()) {
        if (++ints_ > max_ints_) fail(fmt::format("more than {} ints: the file is not a plausible dataset", max_ints_));
        list.list->ints.push_back(v.i);
      } else {
        if (!list.list->ints.empty()) fail("a list mixes ints and other values");
        list.list->objects.push_back(std::move(v));
      }
    }
  }
  void memo_put(uint64_t index) {
    // Each entry costs at least one opcode byte, which bounds the memo by the data's size.
    if (memo_.size() > data_.size()) fail("more memo entries than the pickle has bytes");
    memo_[index] = top();
  }
  void memo_get(uint64_t index) {
    auto it = memo_.find(index);
    if (it == memo_.end()) fail(fmt::format("memo index {} was never stored", index));
    stack_.push_back(it->second);
  }
  static int64_t signed_le(uint64_t v, int bytes) {
    if (bytes < 8 && (v >> (8 * bytes - 1)) & 1) v |= ~uint64_t{0} << (8 * bytes);
    return static_cast<int64_t>(v);
  }
  void push_global(const std::string& module, const std::string& name) {
    Value g;
    g.kind = Kind::kGlobal;
    if ((module == "numpy.core.multiarray" || module == "numpy._core.multiarray") && name == "_reconstruct")
      g.i = static_cast<int64_t>(Global::kReconstruct);
    else if (module == "numpy" && name == "ndarray") g.i = static_cast<int64_t>(Global::kNdArrayType);
    else if (module == "numpy" && name == "dtype") g.i = static_cast<int64_t>(Global::kDtypeType);
    else if (module == "_codecs" && name == "encode") g.i = static_cast<int64_t>(Global::kCodecsEncode);
    else
      fail(fmt::format("the pickle refers to {}.{}, which a numpy array never needs; refusing to load it", module, name));
    stack_.push_back(std::move(g));
  }
  static bool is_global(const Value& v, Global g) { return v.kind == Kind::kGlobal && v.i == static_cast<int64_t>(g); }

  void reduce() {
    Value args = pop();
    Value callable = pop();
    if (args.kind != Kind::kTuple) fail("REDUCE without an argument tuple");
    const auto& a = *args.tuple;
    Value out;
    if (is_global(callable, Global::kReconstruct)) {
      if (a.empty() || !is_global(a[0], Global::kNdArrayType)) fail("_reconstruct of something other than numpy.ndarray");
      out.kind = Kind::kNdArray;
    } else if (is_global(callable, Global::kDtypeType)) {
      if (a.empty() || a[0].kind != Kind::kText) fail("numpy.dtype without a type string");
      out.kind = Kind::kDtype;
      out.s = a[0].s;
    } else if (is_global(callable, Global::kCodecsEncode)) {
      if (a.empty() || a[0].kind != Kind::kText) fail("_codecs.encode without a string");
      out.kind = Kind::kBytes;
      out.s = a[0].s;
    } else {
      fail(fmt::format("REDUCE on a {}", kind_name(callable.kind)));
    }
    stack_.push_back(std::move(out));
  }

  void build() {
    Value state = pop();
    Value& obj = top();
    if (obj.kind == Kind::kDtype) return;  // byte order and flags: irrelevant for 'O'
    if (obj.kind != Kind::kNdArray) fail(fmt::format("BUILD on a {}", kind_name(obj.kind)));
    if (state.kind != Kind::kTuple || state.tuple->size() != 5) fail("ndarray state is not a 5-tuple");
    const auto& s = *state.tuple;
    if (s[1].kind != Kind::kTuple) fail("ndarray shape is not a tuple");
    obj.shape.clear();
    int64_t count = 1;
    for (const auto& d : *s[1].tuple) {
      if (d.kind != Kind::kInt || d.i < 0) fail("ndarray shape holds a non-integer or negative size");
      obj.shape.push_back(d.i);
      if (d.i > 0 && count > max_ints_ / d.i) fail("ndarray shape declares more items than the file can hold");
      count *= d.i;
    }
    if (s[2].kind != Kind::kDtype) fail("ndarray dtype is missing");
    obj.object_dtype = s[2].s == "O8" || s[2].s == "O4" || s[2].s == "O";
    if (!obj.object_dtype) fail(fmt::format("a pickled array of dtype '{}'; expected an object array", s[2].s));
    if (s[4].kind != Kind::kList) fail(fmt::format("object array data is a {}, expected a list", kind_name(s[4].kind)));
    obj.list = s[4].list;
    obj.built = true;
  }

  void dispatch(unsigned char op, size_t at) {
    switch (op) {
      case 0x80: byte(); break;                       // PROTO
      case 0x95: le(8); break;                        // FRAME: framing is transparent here
      case '(': stack_.push_back(of(Kind::kMark)); break;  // MARK
      case 'N': stack_.push_back(of(Kind::kNone)); break;
      case 0x88: case 0x89: {                         // NEWTRUE, NEWFALSE
        Value b;
        b.kind = Kind::kBool;
        b.i = op == 0x88;
        stack_.push_back(std::move(b));
        break;
      }
      case 'J': push_int(signed_le(le(4), 4)); break;  // BININT
      case 'K': push_int(static_cast<int64_t>(le(1))); break;  // BININT1
      case 'M': push_int(static_cast<int64_t>(le(2))); break;  // BININT2
      case 0x8a: case 0x8b: {                         // LONG1, LONG4
        const uint64_t n = op == 0x8a ? le(1) : le(4);
        if (n > 8) fail(fmt::format("an integer of {} bytes", n));
        push_int(n == 0 ? 0 : signed_le(le(static_cast<int>(n)), static_cast<int>(n)));
        break;
      }
      case 'I': case 'L': {                                      // INT, LONG (text; protocols 0 and 1)
        std::string digits = line();
        if (op == 'L' && !digits.empty() && digits.back() == 'L') digits.pop_back();
        if (op == 'I' && (digits == "00" || digits == "01")) {  // how protocol 0 spells False and True
          Value b;
          b.kind = Kind::kBool;
          b.i = digits == "01";
          stack_.push_back(std::move(b));
          break;
        }
        char* end = nullptr;
        errno = 0;
        const long long v = std::strtoll(digits.c_str(), &end, 10);
        if (digits.empty() || *end != '\0' || errno == ERANGE) fail(fmt::format("a malformed integer '{}'", digits));
        push_int(v);
        break;
      }
      case 0x8c: push_string(Kind::kText, take(le(1))); break;   // SHORT_BINUNICODE
      case 'X': push_string(Kind::kText, take(le(4))); break;    // BINUNICODE
      case 0x8d: push_string(Kind::kText, take(le(8))); break;   // BINUNICODE8
      case 'U': push_string(Kind::kText, take(le(1))); break;    // SHORT_BINSTRING (Python 2 str)
      case 'T': push_string(Kind::kText, take(le(4))); break;    // BINSTRING
      case 'C': push_string(Kind::kBytes, take(le(1))); break;   // SHORT_BINBYTES
      case 'B': push_string(Kind::kBytes, take(le(4))); break;   // BINBYTES
      case 0x8e: push_string(Kind::kBytes, take(le(8))); break;  // BINBYTES8
      case ')': push_tuple({}); break;                           // EMPTY_TUPLE
      case 0x85: case 0x86: case 0x87: {                         // TUPLE1..3
        const size_t n = op - 0x84;
        if (stack_.size() < n) fail("stack underflow");
        std::vector<Value> items;
        for (size_t k = 0; k < n; ++k) items.insert(items.begin(), pop());
        push_tuple(std::move(items));
        break;
      }
      case 't': push_tuple(pop_to_mark()); break;                // TUPLE
      case ']': stack_.push_back(new_list()); break;              // EMPTY_LIST
      case 'l': {                                                // LIST
        Value l = new_list();
        append(l, pop_to_mark());
        stack_.push_back(std::move(l));
        break;
      }
      case 'a': {                                                // APPEND
        Value v = pop();
        std::vector<Value> one;
        one.push_back(std::move(v));
        append(top(), std::move(one));
        break;
      }
      case 'e': {                                                // APPENDS
        auto items = pop_to_mark();
        append(top(), std::move(items));
        break;
      }
      case 'c': {                                                // GLOBAL
        const std::string module = line();
        const std::string name = line();
        push_global(module, name);
        break;
      }
      case 0x93: {                                               // STACK_GLOBAL
        Value name = pop();
        Value module = pop();
        if (module.kind != Kind::kText || name.kind != Kind::kText) fail("STACK_GLOBAL without names");
        push_global(module.s, name.s);
        break;
      }
      case 'R': reduce(); break;
      case 'b': build(); break;
      case 'q': memo_put(le(1)); break;                          // BINPUT
      case 'r': memo_put(le(4)); break;                          // LONG_BINPUT
      case 0x94: memo_put(next_memo_++); break;                  // MEMOIZE
      case 'h': memo_get(le(1)); break;                          // BINGET
      case 'j': memo_get(le(4)); break;                          // LONG_BINGET
      case 'p': case 'g': {                                      // PUT, GET (text index)
        const std::string digits = line();
        uint64_t index = 0;
        for (char ch : digits) {
          if (ch < '0' || ch > '9' || index > data_.size()) fail("a malformed memo index");
          index = index * 10 + static_cast<uint64_t>(ch - '0');
        }
        if (op == 'p') memo_put(index);
        else memo_get(index);
        break;
      }
      default:
        pos_ = at;
        fail(fmt::format("opcode 0x{:02x} ('{}') is not one numpy uses for an object array; refusing to load it",
                         op, op >= 0x20 && op < 0x7f ? static_cast<char>(op) : '?'));
    }
  }

  static constexpr int64_t kMaxContainers = 4'000'000;

  // Declared first, destroyed last: every Value below points into these.
  std::deque<std::vector<Value>> tuples_;
  std::deque<ListData> lists_;
  const std::string& data_;
  const std::string& what_;
  const int64_t max_ints_;
  size_t pos_ = 0;
  int64_t ints_ = 0;
  int64_t containers_ = 0;
  uint64_t next_memo_ = 0;
  std::vector<Value> stack_;
  std::unordered_map<uint64_t, Value> memo_;
};
}  // namespace pickle_internal

PickledObjectArray unpickle_object_array(const std::string& pickle, const std::string& what, int64_t max_ints) {
  return pickle_internal::Unpickler(pickle, what, max_ints).run();
}

}  // namespace mirror
