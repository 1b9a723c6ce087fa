#include "reproduce/export_folder.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

namespace ampscope::reproduce {
namespace {

namespace fs = std::filesystem;

constexpr char kMarkerText[] =
    "This folder was written by AmpScope's \"Reproduce in PyTorch\" export.\n"
    "AmpScope exports into a folder that is not empty only while this file is in it.\n";

std::string fileStem(const std::string& name) {
  std::string stem;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    stem += ok ? c : '_';
  }
  return stem.empty() ? std::string("tensor") : stem;
}

bool isFilesystemRoot(const fs::path& root) {
  std::error_code ec;
  fs::path resolved = fs::weakly_canonical(fs::absolute(root, ec), ec);
  if (ec) resolved = root.lexically_normal();
  return resolved.has_root_path() && !resolved.has_relative_path();
}

}  // namespace

std::string weightFile(const std::string& tensorName) { return "weights/" + fileStem(tensorName) + ".npy"; }
std::string batchFile(const std::string& tensorName) { return "batches/" + fileStem(tensorName) + ".npy"; }

bool claimExportFolder(const fs::path& root, std::string* error) {
  const std::string folder = root.string();
  if (isFilesystemRoot(root)) {
    *error = folder + ": refusing to export into the root of the file system; choose a new folder";
    return false;
  }
  std::error_code ec;
  const fs::file_status status = fs::status(root, ec);
  if (fs::exists(status)) {
    if (!fs::is_directory(status)) {
      *error = folder + ": not a folder; choose a new or empty folder";
      return false;
    }
    const bool empty = fs::is_empty(root, ec);
    if (ec) {
      *error = folder + ": cannot read the folder: " + ec.message();
      return false;
    }
    if (!empty && !fs::exists(root / kMarkerFile, ec)) {
      *error = folder + ": the folder is not empty and no earlier AmpScope export wrote it (it has no " +
               kMarkerFile + "); choose a new or empty folder";
      return false;
    }
  }
  fs::create_directories(root / "weights", ec);
  if (!ec) fs::create_directories(root / "batches", ec);
  if (ec) {
    *error = folder + ": cannot create the folder: " + ec.message();
    return false;
  }
  return writeTextFile(root / kMarkerFile, kMarkerText, error);
}

bool writeTextFile(const fs::path& path, const std::string& text, std::string* error) {
  errno = 0;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    *error = path.string() + ": cannot open for writing: " + std::strerror(errno);
    return false;
  }
  out << text;
  out.close();
  if (!out) {
    *error = path.string() + ": write failed";
    return false;
  }
  return true;
}

}  // namespace ampscope::reproduce
