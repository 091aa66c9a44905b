// Issue 36 item 5: every public training case's comments point to docs/mapping-guide.md, and every section
// they name is a heading there (a renamed section would leave the cases pointing nowhere).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace {

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("public training cases point to the mapping guide's sections", "[mapping-guide]") {
  const std::filesystem::path root(HPCSIM_SOURCE_DIR);
  std::set<std::string> headings;
  {
    std::istringstream guide(read(root / "docs" / "mapping-guide.md"));
    for (std::string line; std::getline(guide, line);) {
      if (line.rfind("## ", 0) == 0) headings.insert(line.substr(3));
      if (line.rfind("### ", 0) == 0) headings.insert(line.substr(4));
    }
  }
  REQUIRE(headings.count("The assumptions list") == 1);
  int cases = 0;
  for (const auto& entry : std::filesystem::directory_iterator(root / "configs" / "validation")) {
    if (entry.path().extension() != ".yaml") continue;
    const std::string text = read(entry.path());
    INFO(entry.path().filename().string());
    const std::size_t at = text.find("docs/mapping-guide.md, section");
    REQUIRE(at != std::string::npos);
    ++cases;
    // The quoted names up to the end of the comment sentence; at least one, each a heading.
    const std::string line = text.substr(at, text.find('\n', text.find('"', at) + 1) - at);
    int named = 0;
    for (std::size_t q = line.find('"'); q != std::string::npos; q = line.find('"', line.find('"', q + 1) + 1)) {
      const std::size_t end = line.find('"', q + 1);
      REQUIRE(end != std::string::npos);
      const std::string section = line.substr(q + 1, end - q - 1);
      INFO(section);
      CHECK(headings.count(section) == 1);
      ++named;
    }
    CHECK(named >= 1);
  }
  CHECK(cases >= 90);
}
