#pragma once
// The raw Reuters-21578 distribution (22 reut2-NNN.sgm files), turned into Keras' reuters.npz the
// way Keras' original build script (make_reuters_dataset, Keras 0.x, run on Python 2.7) did it.

#include <cstdint>
#include <string>
#include <vector>

#include "mirror/data/keras_text.h"

namespace mirror {

// A wire as Keras' script took it from the file: the text before the first "</" after <TOPICS>,
// with <D> and </D> removed (so a wire with several topics gets its first), and the text between
// the next <BODY> in the file and the "</" after it (so a wire without a body gets the body of a
// later wire). Both are the file's Latin-1 bytes; entities such as "&lt;" are left as they are.
struct KerasReutersWire {
  std::string topic;
  std::string text;
};

// Scans one file's text with the script's string searches. Wires whose TOPICS element is empty
// are skipped. Throws DataError naming `what` when a <REUTERS> record is not closed (a file cut
// short), which the script would have read without complaint.
std::vector<KerasReutersWire> keras_reuters_wires(const std::string& latin1, const std::string& what);

// Keras' text_to_word_sequence on a Python 2 byte string with Tokenizer's defaults: lower-case
// A-Z only (other bytes stay as they are), the filter characters !"#$%&()*+,-./:;<=>?@[\]^_`{|}~
// plus tab and newline replaced by spaces, split on spaces, empty pieces dropped.
std::vector<std::string> keras_text_to_words(const std::string& text);

// The order in which CPython 2.7 (64-bit, no -R) lists the keys of a dict of byte strings that
// received them in `keys` order (repeats ignored): the slot order of its open-addressing table.
// Keras' Tokenizer ranked words by count with a stable sort of that list, so words of equal count
// keep this order.
std::vector<std::string> python27_dict_order(const std::vector<std::string>& keys);

// Python 2.7's hash() of a byte string on a 64-bit build.
uint64_t python27_string_hash(const std::string& bytes);

struct RawReuters {
  Sequences x;                          // word ranks from 1 (as in reuters.npz, before index_from)
  std::vector<int64_t> y;               // topic labels, numbered by first appearance
  std::vector<std::string> topic_names; // by label
  std::vector<std::string> words;       // words[rank - 1], UTF-8
  int64_t wires_with_topics = 0;        // wires the script took, before the topic-size rule
};

// Builds the dataset from a directory holding reut2-*.sgm, read in name order: every wire with a
// topic, under its first topic; topics with at least `min_wires_per_topic` wires; labels by first
// appearance; Keras Tokenizer ranks over the kept texts, ties in Python 2.7 dict order. Throws
// DataError when no file is found, a file is cut short, or no topic is large enough.
RawReuters load_reuters_sgml_dir(const std::string& dir, int min_wires_per_topic = 15);

}  // namespace mirror
