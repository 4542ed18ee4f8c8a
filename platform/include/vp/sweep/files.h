// File helpers for the sweep's output tree. Everything a reader may look at
// while a sweep runs (results, markers, plans) appears under its final name
// only when complete: written to a temporary beside it, then renamed.
#pragma once

#include <string>

namespace vp::sweep {

// Writes `text` to "<path>.tmp-<pid>", flushes it to disk and renames it over
// `path`. Throws std::runtime_error naming the path.
void write_file_atomically(const std::string& path, const std::string& text);

// Whole file as bytes; throws std::runtime_error naming the path.
std::string read_file(const std::string& path);

bool file_exists(const std::string& path);

// mkdir -p; throws std::runtime_error.
void make_dirs(const std::string& path);

// rm -rf of one folder (no symlinks followed); missing is fine.
void remove_tree(const std::string& path);

// Absolute form of a path (relative to the working directory).
std::string absolute(const std::string& path);

// The folder holding this executable (from /proc/self/exe).
std::string self_dir();

}  // namespace vp::sweep
