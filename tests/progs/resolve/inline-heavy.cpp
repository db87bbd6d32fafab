// Inline-heavy C++ for tests/bats/resolve.bats and bench/symbolize: its
// frames are compared with llvm-symbolizer's, whole inline chains.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <unordered_map>
#include <vector>

namespace ih {

template <typename T>
struct Matrix {
	std::vector<T> v;
	size_t n;
	explicit Matrix(size_t n_) : v(n_ * n_), n(n_) {}
	T &at(size_t i, size_t j) { return v[i * n + j]; }
	const T &at(size_t i, size_t j) const { return v[i * n + j]; }
	Matrix operator*(const Matrix &o) const
	{
		Matrix r(n);
		for (size_t i = 0; i < n; i++)
			for (size_t k = 0; k < n; k++)
				for (size_t j = 0; j < n; j++)
					r.at(i, j) += at(i, k) * o.at(k, j);
		return r;
	}
};

struct Shape {
	virtual ~Shape() = default;
	virtual double area() const = 0;
};

struct Circle : Shape {
	double r;
	explicit Circle(double r_) : r(r_) {}
	double area() const override { return 3.14159 * r * r; }
};

struct Rect : Shape {
	double w, h;
	Rect(double w_, double h_) : w(w_), h(h_) {}
	double area() const override { return w * h; }
};

static inline unsigned mix(unsigned x)
{
	x ^= x >> 16;
	x *= 0x7feb352d;
	x ^= x >> 15;
	return x;
}

template <typename It, typename F>
static void apply_all(It b, It e, F f)
{
	for (; b != e; ++b)
		f(*b);
}

std::string word(unsigned seed)
{
	std::string s;
	for (int i = 0; i < 6; i++)
		s.push_back('a' + mix(seed + i) % 26);
	return s;
}

std::map<std::string, int> count_words(int n)
{
	std::map<std::string, int> m;
	for (int i = 0; i < n; i++)
		m[word(i % 97)]++;
	return m;
}

double shapes(int n)
{
	std::vector<std::unique_ptr<Shape>> v;
	for (int i = 0; i < n; i++) {
		if (mix(i) & 1)
			v.push_back(std::make_unique<Circle>(i % 7));
		else
			v.push_back(std::make_unique<Rect>(i % 5, i % 3));
	}
	double sum = 0;
	apply_all(v.begin(), v.end(), [&](const std::unique_ptr<Shape> &s) { sum += s->area(); });
	return sum;
}

long sorted_sum(int n)
{
	std::vector<unsigned> v(n);
	std::iota(v.begin(), v.end(), 0u);
	std::transform(v.begin(), v.end(), v.begin(), mix);
	std::sort(v.begin(), v.end(), std::greater<unsigned>());
	std::unordered_map<unsigned, unsigned> h;
	for (unsigned x : v)
		h[x % 1000] += x;
	long s = 0;
	for (auto &kv : h)
		s += kv.second;
	return s;
}

} // namespace ih

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	ih::Matrix<double> a(8), b(8);
	for (size_t i = 0; i < 8; i++)
		for (size_t j = 0; j < 8; j++)
			a.at(i, j) = b.at(j, i) = ih::mix(i * 8 + j) % 10;
	ih::Matrix<double> c = a * b;
	auto m = ih::count_words(n);
	printf("%g %zu %g %ld\n", c.at(1, 2), m.size(), ih::shapes(n),
	       ih::sorted_sum(n));
	return 0;
}
