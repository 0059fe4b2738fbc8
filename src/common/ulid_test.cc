#include <sys/wait.h>
#include <unistd.h>

#include <set>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/clock.h"
#include "common/ulid.h"

namespace omnigraph {
namespace {

TEST(UlidTest, RoundTripsAndIsMonotonic) {
  std::string prev;
  for (int i = 0; i < 10000; ++i) {
    Ulid u = Ulid::Generate();
    std::string s = u.ToString();
    ASSERT_EQ(s.size(), 26u);
    ASSERT_GT(s, prev);  // strictly increasing as strings, even within one millisecond
    auto parsed = Ulid::Parse(s);
    ASSERT_TRUE(parsed.ok());
    ASSERT_EQ(*parsed, u);
    prev = s;
  }
}

// ToChars over arbitrary bits (not only generated ones), against the independent Parse.
TEST(UlidTest, FormatsEveryBitPattern) {
  const std::string alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  std::vector<std::string> texts{"00000000000000000000000000", "7ZZZZZZZZZZZZZZZZZZZZZZZZZ",
                                 "0000000000000Z000000000000", "00000000000001000000000000"};
  uint64_t x = 88172645463325252ull;
  for (int n = 0; n < 2000; ++n) {
    std::string t(26, '0');
    for (int i = 0; i < 26; ++i) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      t[i] = alphabet[x % (i == 0 ? 8 : 32)];
    }
    texts.push_back(t);
  }
  for (const std::string& t : texts) {
    auto u = Ulid::Parse(t);
    ASSERT_TRUE(u.ok()) << t;
    EXPECT_EQ(u->ToString(), t);
  }
}

TEST(UlidTest, MonotonicEvenWhenClockStepsBack) {
  SetClockForTesting([] { return int64_t{2'000'000'000'000'000}; });
  Ulid a = Ulid::Generate();
  SetClockForTesting([] { return int64_t{1'000'000'000'000'000}; });
  Ulid b = Ulid::Generate();
  SetClockForTesting(nullptr);
  EXPECT_LT(a, b);
  EXPECT_EQ(a.timestamp_ms(), 2'000'000'000'000u);
}

TEST(UlidTest, GenerateManyContinuesTheSequence) {
  Ulid before = Ulid::Generate();
  std::vector<Ulid> block(300);
  Ulid::GenerateMany(block);
  Ulid after = Ulid::Generate();
  Ulid prev = before;
  for (const Ulid& u : block) {
    EXPECT_LT(prev, u);
    char chars[26];
    u.ToChars(chars);
    EXPECT_EQ(std::string(chars, 26), u.ToString());
    prev = u;
  }
  EXPECT_LT(prev, after);
  Ulid::GenerateMany({});  // nothing to do
}

TEST(UlidTest, UniqueAcrossThreads) {
  std::vector<std::vector<std::string>> out(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5000; ++i) out[t].push_back(NewUlidString());
    });
  }
  for (auto& th : threads) th.join();
  std::set<std::string> all;
  for (auto& v : out) all.insert(v.begin(), v.end());
  EXPECT_EQ(all.size(), 20000u);
}

// A forked child must not continue the parent's sequence: both would produce the same ids.
TEST(UlidTest, ForkedChildDoesNotRepeatTheParentsIds) {
  (void)Ulid::Generate();
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::string id = NewUlidString();
    ssize_t n = ::write(fds[1], id.data(), id.size());
    ::_exit(n == 26 ? 0 : 1);
  }
  std::string mine = NewUlidString();
  char buf[26];
  ASSERT_EQ(::read(fds[0], buf, 26), 26);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_NE(std::string(buf, 26), mine);
  ::close(fds[0]);
  ::close(fds[1]);
}

TEST(UlidTest, ParseRejectsBadInput) {
  EXPECT_FALSE(Ulid::Parse("").ok());
  EXPECT_FALSE(Ulid::Parse("01ARZ3NDEKTSV4RRFFQ69G5FA").ok());   // 25 chars
  EXPECT_FALSE(Ulid::Parse("01ARZ3NDEKTSV4RRFFQ69G5FAU").ok());  // U is not in the alphabet
  EXPECT_FALSE(Ulid::Parse("81ARZ3NDEKTSV4RRFFQ69G5FAV").ok());  // overflows 128 bits
  auto ok = Ulid::Parse("01arz3ndektsv4rrffq69g5fav");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->ToString(), "01ARZ3NDEKTSV4RRFFQ69G5FAV");
}

TEST(ClockTest, FormatsIso) {
  EXPECT_EQ(FormatMicrosIso(0), "1970-01-01T00:00:00.000000Z");
  EXPECT_EQ(FormatMicrosIso(1'700'000'000'123'456), "2023-11-14T22:13:20.123456Z");
  EXPECT_EQ(FormatMicrosIso(-1), "1969-12-31T23:59:59.999999Z");
}

}  // namespace
}  // namespace omnigraph
