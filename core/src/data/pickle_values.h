#pragma once
// What the restricted unpickler's stack and memo hold (pickle.cpp): Python's None, bools, ints,
// strings, bytes, tuples and lists, the few globals numpy's pickles name, and ndarrays being built.
// Private to the data floor.

#include <cstdint>
#include <string>
#include <vector>

namespace mirror::pickle_internal {

enum class Kind { kNone, kBool, kInt, kText, kBytes, kTuple, kList, kGlobal, kNdArray, kDtype, kMark };
enum class Global { kReconstruct, kNdArrayType, kDtypeType, kCodecsEncode };

struct Value;
// Ints are kept apart from other items so that millions of word ids stay compact.
struct ListData {
  std::vector<Value> objects;
  std::vector<int64_t> ints;
};

// Values point into containers the Unpickler owns (its arena), never own them: a list appended to
// itself through the memo makes no reference cycle to leak, and a tuple nested a million deep is
// freed flat, without recursing once per level (which used to run off the stack).
struct Value {
  Kind kind = Kind::kNone;
  int64_t i = 0;                    // kBool, kInt; kGlobal holds a Global
  std::string s;                    // kText, kBytes, kDtype (descr)
  std::vector<Value>* tuple = nullptr;
  ListData* list = nullptr;         // kList (shared: the memo and the stack may both refer to it, and
                                    // APPENDS changes it); kNdArray: the object items once built
  std::vector<int64_t> shape;       // kNdArray
  bool built = false;               // kNdArray
  bool object_dtype = false;        // kNdArray
};

inline Value of(Kind k) {
  Value v;
  v.kind = k;
  return v;
}

inline const char* kind_name(Kind k) {
  switch (k) {
    case Kind::kNone: return "None";
    case Kind::kBool: return "bool";
    case Kind::kInt: return "int";
    case Kind::kText: return "str";
    case Kind::kBytes: return "bytes";
    case Kind::kTuple: return "tuple";
    case Kind::kList: return "list";
    case Kind::kGlobal: return "global";
    case Kind::kNdArray: return "ndarray";
    case Kind::kDtype: return "dtype";
    case Kind::kMark: return "mark";
  }
  return "?";
}

}  // namespace mirror::pickle_internal
