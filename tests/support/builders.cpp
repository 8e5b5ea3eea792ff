#include "tests/support/builders.hpp"

#include <string>

namespace ibsm::testsupport {
namespace {

// Appends nodes and cables; GUIDs are assigned once the fabric is complete.
class Builder {
 public:
  std::uint32_t add(NodeType type, std::string id, unsigned ports) {
    Node n;
    n.type = type;
    n.description = id;
    n.id = std::move(id);
    n.num_ports = static_cast<std::uint8_t>(ports);
    f_.nodes.push_back(std::move(n));
    return static_cast<std::uint32_t>(f_.nodes.size() - 1);
  }
  void cable(std::uint32_t a, unsigned pa, std::uint32_t b, unsigned pb) {
    f_.cables.push_back({{a, static_cast<std::uint8_t>(pa)}, {b, static_cast<std::uint8_t>(pb)}});
  }
  // `count` single-port hosts on ports 1..count of switch `sw`.
  void hosts(std::uint32_t sw, unsigned count, const std::string& prefix) {
    for (unsigned i = 0; i < count; ++i)
      cable(add(NodeType::kCa, prefix + std::to_string(i), 1), 1, sw, i + 1);
  }
  Fabric done() {
    assign_ibsim_guids(f_);
    return std::move(f_);
  }

 private:
  Fabric f_;
};

}  // namespace

Fabric two_level_fat_tree(unsigned leaves, unsigned hosts_per_leaf, unsigned spines,
                          unsigned links_per_pair) {
  Builder b;
  std::vector<std::uint32_t> spine(spines);
  for (unsigned s = 0; s < spines; ++s)
    spine[s] = b.add(NodeType::kSwitch, "spine" + std::to_string(s), leaves * links_per_pair);
  for (unsigned l = 0; l < leaves; ++l) {
    const std::uint32_t leaf = b.add(NodeType::kSwitch, "leaf" + std::to_string(l),
                                     hosts_per_leaf + spines * links_per_pair);
    for (unsigned s = 0; s < spines; ++s)
      for (unsigned k = 0; k < links_per_pair; ++k)
        b.cable(leaf, hosts_per_leaf + 1 + s * links_per_pair + k, spine[s],
                l * links_per_pair + k + 1);
    b.hosts(leaf, hosts_per_leaf, "h" + std::to_string(l) + "_");
  }
  return b.done();
}

Fabric kary_ntree(unsigned k, unsigned n) {
  Builder b;
  unsigned per_level = 1;
  for (unsigned i = 1; i < n; ++i)
    per_level *= k;
  std::vector<std::vector<std::uint32_t>> sw(n, std::vector<std::uint32_t>(per_level));
  for (unsigned l = 0; l < n; ++l)
    for (unsigned w = 0; w < per_level; ++w)
      sw[l][w] =
          b.add(NodeType::kSwitch, "sw" + std::to_string(l) + "_" + std::to_string(w), 2 * k);
  unsigned weight = 1;  // k^l: the value of digit l
  for (unsigned l = 0; l + 1 < n; ++l, weight *= k) {
    for (unsigned w = 0; w < per_level; ++w) {
      const unsigned digit = (w / weight) % k;
      for (unsigned j = 0; j < k; ++j) {
        const unsigned up = w - digit * weight + j * weight;
        b.cable(sw[l][w], k + 1 + j, sw[l + 1][up], 1 + digit);
      }
    }
  }
  for (unsigned w = 0; w < per_level; ++w)
    b.hosts(sw[0][w], k, "h" + std::to_string(w) + "_");
  return b.done();
}

Fabric folded_clos3(unsigned pods, unsigned leaves, unsigned aggrs, unsigned cores,
                    unsigned hosts) {
  Builder b;
  std::vector<std::vector<std::uint32_t>> core(aggrs, std::vector<std::uint32_t>(cores));
  for (unsigned a = 0; a < aggrs; ++a)
    for (unsigned j = 0; j < cores; ++j)
      core[a][j] =
          b.add(NodeType::kSwitch, "c" + std::to_string(a) + "_" + std::to_string(j), pods);
  for (unsigned p = 0; p < pods; ++p) {
    const std::string pod = "p" + std::to_string(p);
    std::vector<std::uint32_t> aggr(aggrs);
    for (unsigned a = 0; a < aggrs; ++a) {
      aggr[a] = b.add(NodeType::kSwitch, pod + "a" + std::to_string(a), leaves + cores);
      for (unsigned j = 0; j < cores; ++j)
        b.cable(aggr[a], leaves + 1 + j, core[a][j], p + 1);
    }
    for (unsigned l = 0; l < leaves; ++l) {
      const std::uint32_t leaf =
          b.add(NodeType::kSwitch, pod + "l" + std::to_string(l), hosts + aggrs);
      for (unsigned a = 0; a < aggrs; ++a)
        b.cable(leaf, hosts + 1 + a, aggr[a], l + 1);
      b.hosts(leaf, hosts, "h" + std::to_string(p) + "_" + std::to_string(l) + "_");
    }
  }
  return b.done();
}

Fabric torus(std::array<unsigned, 3> dims, unsigned hosts, std::array<bool, 3> wrap) {
  Builder b;
  const unsigned total = dims[0] * dims[1] * dims[2];
  std::vector<std::uint32_t> sw(total);
  for (unsigned x = 0; x < dims[0]; ++x)
    for (unsigned y = 0; y < dims[1]; ++y)
      for (unsigned z = 0; z < dims[2]; ++z)
        sw[(x * dims[1] + y) * dims[2] + z] = b.add(
            NodeType::kSwitch,
            "s" + std::to_string(x) + "_" + std::to_string(y) + "_" + std::to_string(z), hosts + 6);
  for (unsigned i = 0; i < total; ++i) {
    const unsigned c[3] = {i / (dims[1] * dims[2]), (i / dims[2]) % dims[1], i % dims[2]};
    const unsigned stride[3] = {dims[1] * dims[2], dims[2], 1};
    for (unsigned d = 0; d < 3; ++d) {
      if (dims[d] < 2) continue;
      const bool last = c[d] + 1 == dims[d];
      if (last && !wrap[d]) continue;
      const unsigned next = last ? i - c[d] * stride[d] : i + stride[d];
      b.cable(sw[i], hosts + 1 + 2 * d, sw[next], hosts + 2 + 2 * d);
    }
  }
  for (unsigned i = 0; i < total; ++i) {
    const std::string xyz = std::to_string(i / (dims[1] * dims[2])) + "_" +
                            std::to_string((i / dims[2]) % dims[1]) + "_" +
                            std::to_string(i % dims[2]);
    b.hosts(sw[i], hosts, "h" + xyz + "_");
  }
  return b.done();
}

}  // namespace ibsm::testsupport
