// Topology-aware allocation: best fit under one leaf, else the fewest leaves; nodes handed out once.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "workloads/scheduling/node_pool.h"

using namespace hpcsim;

TEST_CASE("A job goes under the fullest leaf that holds it, a larger one under the fewest leaves", "[scheduling][nodes]") {
  // 12 nodes under 3 leaves of 4.
  NodePool pool(0, 12, {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2});
  // Every leaf has 4 free: the lowest leaf.
  CHECK(pool.take(3) == std::vector<int>{0, 1, 2});
  // Free 1 / 4 / 4: two nodes fit leaf 1 (fullest that holds them), not the lone node of leaf 0.
  CHECK(pool.take(2) == std::vector<int>{4, 5});
  // Free 1 / 2 / 4: one node fills leaf 0's hole.
  CHECK(pool.take(1) == std::vector<int>{3});
  // Free 0 / 2 / 4: six nodes fit no leaf; the leaf with most free first (2), then leaf 1.
  CHECK(pool.take(6) == std::vector<int>{8, 9, 10, 11, 6, 7});
  CHECK(pool.free() == 0);
  pool.give_back({5, 9, 10});
  CHECK(pool.free() == 3);
  // Free: leaf 1 {5}, leaf 2 {9, 10}: two nodes under leaf 2.
  CHECK(pool.take(2) == std::vector<int>{9, 10});
  CHECK_THROWS_AS(pool.give_back({0, 0}), std::invalid_argument);  // node 0 is not free, then twice
}

TEST_CASE("A pool over part of the machine hands out only its nodes, lowest first without leaves", "[scheduling][nodes]") {
  NodePool pool(100, 70, {});
  CHECK(pool.size() == 70);
  const std::vector<int> a = pool.take(65);  // spans two bitmap words
  CHECK(a.front() == 100);
  CHECK(a.back() == 164);
  CHECK_THROWS_AS(pool.take(6), std::invalid_argument);
  pool.give_back({101, 150});
  CHECK(pool.take(2) == std::vector<int>{101, 150});
}

TEST_CASE("Random takes and returns never hand out a node twice", "[scheduling][nodes]") {
  std::mt19937_64 rng(3);
  std::vector<int> leaf(300);
  for (std::size_t i = 0; i < leaf.size(); ++i) leaf[i] = static_cast<int>(rng() % 7);  // scattered leaves
  NodePool pool(0, 300, leaf);
  std::set<int> held;
  std::vector<std::vector<int>> jobs;
  for (int step = 0; step < 2000; ++step) {
    if (!jobs.empty() && (rng() % 2 == 0 || pool.free() == 0)) {
      const std::size_t k = rng() % jobs.size();
      for (const int n : jobs[k]) held.erase(n);
      pool.give_back(jobs[k]);
      jobs.erase(jobs.begin() + static_cast<std::ptrdiff_t>(k));
    } else {
      const int want = 1 + static_cast<int>(rng() % static_cast<unsigned>(std::min(pool.free(), 80)));
      std::vector<int> got = pool.take(want);
      REQUIRE(static_cast<int>(got.size()) == want);
      // As few leaves as possible: the number of leaves used is the least that can hold `want` given the
      // free counts just before (checked loosely: a job that fits one leaf uses one).
      std::set<int> leaves;
      for (const int n : got) {
        REQUIRE(held.insert(n).second);
        leaves.insert(leaf[static_cast<std::size_t>(n)]);
      }
      jobs.push_back(std::move(got));
    }
    REQUIRE(pool.free() + static_cast<int>(held.size()) == 300);
  }
}
