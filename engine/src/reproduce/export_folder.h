// The folder "Reproduce in PyTorch" writes: where each tensor's file goes, and the guard that keeps an
// export from writing over what a user made.
#pragma once

#include <filesystem>
#include <string>

namespace ampscope::reproduce {

// Written first into every export folder. A folder that holds it was made by an earlier export, whose
// files a new export may replace; any other non-empty folder is refused.
inline constexpr char kMarkerFile[] = ".ampscope-reproduce";

// "weights/NAME.npy" and "batches/NAME.npy", relative to the folder: the state_dict or batch tensor
// name is kept so a student sees which is which; anything outside [A-Za-z0-9._-] becomes '_'.
std::string weightFile(const std::string& tensorName);
std::string batchFile(const std::string& tensorName);

// Makes `root` ready for an export: creates it (with weights/ and batches/) when missing, refuses "/",
// a path that is not a folder, and a non-empty folder without the marker, then writes the marker.
// Returns false and sets `error` (naming the folder) when it refuses or cannot.
bool claimExportFolder(const std::filesystem::path& root, std::string* error);

// Writes `text` to `path`, replacing it; false and `error` (naming the file) when that fails.
bool writeTextFile(const std::filesystem::path& path, const std::string& text, std::string* error);

}  // namespace ampscope::reproduce
