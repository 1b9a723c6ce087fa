// The folder "Reproduce in PyTorch" writes: where each tensor's file goes, and the guard that keeps an
// export from writing over what a user made.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace ampscope::reproduce {

// Written first into every export folder. A folder that holds it was made by an earlier export, whose
// files a new export may replace; any other non-empty folder is refused unless the caller forces it.
inline constexpr char kMarkerFile[] = ".ampscope-reproduce";

// The export's files at the top of the folder besides the marker; weights/ and batches/ hold the rest.
inline constexpr const char* kTopLevelFiles[] = {"run.py", "README.txt", "ampscope_loss.csv"};

// How many of a refused folder's entries are named back to the user.
inline constexpr size_t kListedForeignEntries = 5;

// "weights/NAME.npy" and "batches/NAME.npy", relative to the folder: the state_dict or batch tensor
// name is kept so a student sees which is which; anything outside [A-Za-z0-9._-] becomes '_'.
std::string weightFile(const std::string& tensorName);
std::string batchFile(const std::string& tensorName);

struct FolderClaim {
  bool ok = false;
  // The folder held entries and no marker, and `force` let the export in: nothing of it may be deleted.
  bool adopted = false;
  // When the folder held entries and no marker: the first kListedForeignEntries names in byte order, and
  // how many there were in all (set whether or not the claim was forced).
  std::vector<std::string> foreignEntries;
  int64_t foreignCount = 0;
};

// Makes `root` ready for an export: creates it (with weights/ and batches/) when missing, refuses "/",
// a path that is not a folder, and - unless `force` - a non-empty folder without the marker, then
// writes the marker. Even forced, weights/ or batches/ that are links, and an export file name taken by
// something that is not a regular file, are refused (writing through them would land elsewhere or
// block). Sets `error` (naming the folder or the entry) when it refuses or cannot.
FolderClaim claimExportFolder(const std::filesystem::path& root, bool force, std::string* error);

// False and `error` (naming it) when `path` exists and is not a regular file: a link could send the
// write outside the folder, a FIFO would block it.
bool isReplaceableFile(const std::filesystem::path& path, std::string* error);

// claimExportFolder's checks alone: writes nothing, `ok` when the claim would be made.
FolderClaim inspectExportFolder(const std::filesystem::path& root, bool force, std::string* error);

// Writes `text` to `path`, replacing it; false and `error` (naming the file) when that fails or `path`
// is not replaceable.
bool writeTextFile(const std::filesystem::path& path, const std::string& text, std::string* error);

}  // namespace ampscope::reproduce
