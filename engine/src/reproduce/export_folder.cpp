#include "reproduce/export_folder.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <system_error>

namespace ampscope::reproduce {
namespace {

namespace fs = std::filesystem;

constexpr char kMarkerText[] =
    "This folder was written by AmpScope's \"Reproduce in PyTorch\" export.\n"
    "AmpScope exports into a folder that is not empty only while this file is in it (or when told to).\n";

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

FolderClaim inspectExportFolder(const fs::path& root, bool force, std::string* error) {
  FolderClaim claim;
  const std::string folder = root.string();
  if (isFilesystemRoot(root)) {
    *error = folder + ": refusing to export into the root of the file system; choose a new folder";
    return claim;
  }
  std::error_code ec;
  const fs::file_status status = fs::status(root, ec);
  if (fs::exists(status)) {
    if (!fs::is_directory(status)) {
      *error = folder + ": not a folder; choose a new or empty folder";
      return claim;
    }
    const bool marked = fs::exists(fs::symlink_status(root / kMarkerFile, ec));
    if (!marked) {
      // Only the smallest few names are kept, however many entries a folder holds.
      std::set<std::string> smallest;
      for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
        ++claim.foreignCount;
        smallest.insert(it->path().filename().string());
        if (smallest.size() > kListedForeignEntries) smallest.erase(std::prev(smallest.end()));
      }
      if (ec) {
        *error = folder + ": cannot read the folder: " + ec.message();
        return claim;
      }
      claim.foreignEntries.assign(smallest.begin(), smallest.end());
      if (claim.foreignCount > 0 && !force) {
        *error = folder + ": the folder is not empty and no earlier AmpScope export wrote it (it has no " +
                 kMarkerFile + "); choose a new or empty folder";
        return claim;
      }
      claim.adopted = claim.foreignCount > 0;
    }
  }
  // Checked before anything is written, so a refused folder is left as it was.
  for (const char* name : kTopLevelFiles) {
    if (!isReplaceableFile(root / name, error)) return claim;
  }
  if (!isReplaceableFile(root / kMarkerFile, error)) return claim;
  for (const char* sub : {"weights", "batches"}) {
    if (fs::is_symlink(fs::symlink_status(root / sub, ec))) {
      *error = (root / sub).string() + ": is a link; the export writes only into folders of its own";
      return claim;
    }
  }
  claim.ok = true;
  return claim;
}

FolderClaim claimExportFolder(const fs::path& root, bool force, std::string* error) {
  FolderClaim claim = inspectExportFolder(root, force, error);
  if (!claim.ok) return claim;
  claim.ok = false;
  std::error_code ec;
  const std::string folder = root.string();
  fs::create_directories(root / "weights", ec);
  if (!ec) fs::create_directories(root / "batches", ec);
  if (ec) {
    *error = folder + ": cannot create the folder: " + ec.message();
    return claim;
  }
  claim.ok = writeTextFile(root / kMarkerFile, kMarkerText, error);
  return claim;
}

bool isReplaceableFile(const fs::path& path, std::string* error) {
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(path, ec);
  if (!fs::exists(status) || fs::is_regular_file(status)) return true;
  *error = path.string() + ": exists and is not a regular file (" +
           (fs::is_symlink(status) ? std::string("a link") : fs::is_directory(status) ? "a folder" : "special") +
           "); the export replaces only files it can write in place";
  return false;
}

bool writeTextFile(const fs::path& path, const std::string& text, std::string* error) {
  if (!isReplaceableFile(path, error)) return false;
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
