// Runs a fuzz target over files without libFuzzer, so the ordinary test build replays the seed
// corpus and every regression input through the same entry point the fuzzer calls.
//   fuzz_<target>_replay FILE_OR_DIRECTORY...
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

// libFuzzer's interface; a target defines LLVMFuzzerInitialize only when it needs set-up, which is
// why the declaration is weak.
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) __attribute__((weak));
extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size);

int main(int argc, char* argv[])
{
  namespace fs = std::filesystem;
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    fs::path const path(argv[i]);
    if (!fs::is_directory(path)) {
      inputs.push_back(path);
      continue;
    }
    for (auto const& entry : fs::directory_iterator(path))
      if (entry.is_regular_file()) inputs.push_back(entry.path());
  }
  if (inputs.empty()) {
    std::cerr << "usage: " << argv[0] << " FILE_OR_DIRECTORY... (no input files given)\n";
    return 2;
  }
  std::sort(inputs.begin(), inputs.end());
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  for (auto const& input : inputs) {
    // Named first, so a replay that aborts shows which input did it.
    std::cout << "replaying " << input.string() << std::endl;
    std::ifstream in(input, std::ios::binary);
    if (!in) {
      std::cerr << input.string() << ": cannot read this input\n";
      return 2;
    }
    std::string const bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    LLVMFuzzerTestOneInput(reinterpret_cast<std::uint8_t const*>(bytes.data()), bytes.size());
  }
  std::cout << "replayed " << inputs.size() << " inputs\n";
  return 0;
}
