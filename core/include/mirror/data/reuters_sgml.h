#pragma once
// The raw Reuters-21578 distribution (22 reut2-NNN.sgm files), turned into the dataset the way
// Keras' original preprocessing built reuters.npz.

#include <cstdint>
#include <string>
#include <vector>

#include "mirror/data/keras_text.h"

namespace mirror {

struct ReutersWire {
  int64_t newid = 0;
  std::vector<std::string> topics;  // the <D> entries of <TOPICS>, in order
  std::string body;                 // raw text between <BODY> and </BODY>, UTF-8; empty if none
};

// Parses one SGML file's text (Latin-1 bytes, converted to UTF-8 here). Throws DataError naming
// `what` when a <REUTERS> record is not closed (a file cut short).
std::vector<ReutersWire> parse_reuters_sgml(const std::string& latin1, const std::string& what);

// keras.preprocessing.text.Tokenizer with its defaults: lower-case, the default filter
// characters !"#$%&()*+,-./:;<=>?@[\]^_`{|}~ plus tab and newline replaced by spaces, split on
// spaces, empty pieces dropped.
std::vector<std::string> keras_text_to_words(const std::string& text);

struct RawReuters {
  Sequences x;                          // word ranks from 1 (as in reuters.npz, before index_from)
  std::vector<int64_t> y;               // topic labels, numbered by first appearance
  std::vector<std::string> topic_names; // by label
  std::vector<std::string> words;       // words[rank - 1]; ranked by frequency, ties by first appearance
};

// Builds the dataset from a directory holding reut2-*.sgm: wires with exactly one topic, topics
// with at least `min_wires_per_topic` such wires, Keras Tokenizer ranks over the kept bodies.
// Files are read in name order. Throws DataError when no file is found or a file is cut short.
// Note: words of equal frequency are ranked by first appearance; Keras' own reuters.npz was made
// from os.listdir order, so such ties may be ranked differently there.
RawReuters load_reuters_sgml_dir(const std::string& dir, int min_wires_per_topic = 15);

}  // namespace mirror
