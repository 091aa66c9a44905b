// hpcsim: the command-line entry point. Wiring only; the work happens in the layers below.
#include <iostream>

int main() {
  std::cout << "hpcsim " << HPCSIM_VERSION << "\n";
  return 0;
}
