// The HTML report's lane maps: one warp's access drawn against the GPU's rules, as CUDA courses
// draw it by hand (html.h). The rules lane by lane come from counter_rules.h (sharedLaneMap,
// globalLaneMap), the same that count.
#include "runtime/counter_rules.h"
#include "runtime/html.h"

#include <algorithm>
#include <bit>
#include <cstdio>

namespace kern::runtime {

namespace {

constexpr int kLanes = 32;
constexpr int kCell = 22;   // a lane's column, px
constexpr int kLeft = 74;   // the labels' column
constexpr int kLaneY = 18;  // the lanes' row
constexpr int kBankY = 104; // the banks' or transactions' row
constexpr int kBox = 18;    // a box's height

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  std::string s = buf;
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0)
    s.resize(s.size() - 2);
  return s;
}

std::string rect(double x, double y, double w, double h, const std::string &cls,
                 const std::string &title = "") {
  std::string r = "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(w) +
                  "\" height=\"" + num(h) + "\" class=\"" + cls + "\"";
  return title.empty() ? r + "/>" : r + "><title>" + htmlEscape(title) + "</title></rect>";
}

std::string text(double x, double y, const std::string &s, const std::string &cls = "") {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\"" +
         (cls.empty() ? "" : " class=\"" + cls + "\"") + ">" + htmlEscape(s) + "</text>";
}

std::string line(double x1, double y1, double x2, double y2, const std::string &cls) {
  return "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" +
         num(y2) + "\" class=\"" + cls + "\"/>";
}

double laneX(int lane) { return kLeft + lane * kCell; }

/// The row of 32 lane boxes, inactive lanes hollow.
std::string laneRow(uint32_t mask, const std::string &what) {
  std::string out = text(4, kLaneY + 13, "lane", "label");
  for (int l = 0; l < kLanes; ++l) {
    const bool on = (mask >> l) & 1;
    out += rect(laneX(l) + 1, kLaneY, kCell - 2, kBox, on ? "lane" : "lane off",
                "lane " + u(l) + (on ? ": " + what : ": inactive"));
    out += text(laneX(l) + kCell / 2.0, kLaneY + 13, u(l), "num");
  }
  return out;
}

std::string open(const std::string &cls, int height, const std::string &data) {
  const int width = kLeft + kLanes * kCell + 8;
  return "<svg class=\"" + cls + "\" " + data + " width=\"" + u(width) + "\" height=\"" +
         u(height) + "\" viewBox=\"0 0 " + u(width) + " " + u(height) +
         "\" xmlns=\"http://www.w3.org/2000/svg\">";
}

std::string sharedSvg(const DeviceProfile &dev, const LaneCapture &w) {
  const CounterConfig config = counterConfigFor(dev);
  const uint32_t op = w.flags & KERN_ACCESS_OP_MASK;
  const bool atomic = op >= KERN_ACCESS_ATOMIC;
  const SharedLaneMap m = sharedLaneMap(config.sharedRule, config.sharedBanks, w.addrs, w.mask,
                                        w.size, op != KERN_ACCESS_LOAD);
  const uint32_t banks = config.sharedBanks;
  const double bankCell = double(kLanes * kCell) / banks;
  const int steps = atomic ? 0 : static_cast<int>(m.cost.steps);
  const int stepsY = kBankY + kBox + 22;
  const int height = stepsY + steps * 14 + 8;
  std::string out = open("lanemap shared", height,
                         "data-steps=\"" + u(m.cost.steps) + "\" data-banks=\"" + u(banks) + "\"");
  out += laneRow(w.mask, "shared byte offset");
  out += text(4, kBankY + 13, "bank", "label");
  // Lanes to banks, each line in the colour of the step that serves the lane.
  for (int l = 0; l < kLanes; ++l) {
    if (!((w.mask >> l) & 1))
      continue;
    const double bx = kLeft + (m.bank[l] + 0.5) * bankCell;
    out += line(laneX(l) + kCell / 2.0, kLaneY + kBox, bx, kBankY,
                atomic ? "wire" : "wire s" + u(m.round[l] % 8));
  }
  std::vector<int> lanesOf(banks, 0);
  for (int l = 0; l < kLanes; ++l)
    if ((w.mask >> l) & 1)
      ++lanesOf[m.bank[l]];
  for (uint32_t b = 0; b < banks; ++b) {
    out +=
        rect(kLeft + b * bankCell + 1, kBankY, bankCell - 2, kBox,
             lanesOf[b] ? "bank" : "bank idle", "bank " + u(b) + ": " + u(lanesOf[b]) + " lane(s)");
    out += text(kLeft + (b + 0.5) * bankCell, kBankY + 13, u(b), "num");
  }
  // cc1.x: each half-warp is its own request, its steps after the first half-warp's.
  if (config.sharedRule == SharedBankRule::HalfWarp) {
    const double x = laneX(16) - 0.5;
    out += line(x, kLaneY - 4, x, stepsY + steps * 14, "halfwarp");
    out += text(laneX(8), kLaneY - 6, "half-warp 1", "num") +
           text(laneX(24), kLaneY - 6, "half-warp 2", "num");
  }
  // One row per step: the lanes it serves. A conflict-free access is one row (per request).
  if (steps > 0)
    out += text(4, stepsY - 6, "steps", "label");
  for (int s = 0; s < steps; ++s) {
    out += "<g class=\"step\">" + text(4, stepsY + s * 14 + 10, u(s + 1), "label");
    for (int l = 0; l < kLanes; ++l)
      if ((m.serves[s] >> l) & 1)
        out += rect(laneX(l) + 3, stepsY + s * 14, kCell - 6, 11, "served s" + u(s % 8),
                    "step " + u(s + 1) + ": lane " + u(l));
    out += "</g>";
  }
  return out + "</svg>";
}

std::string globalSvg(const DeviceProfile &dev, const LaneCapture &w) {
  const CounterConfig config = counterConfigFor(dev);
  const uint32_t op = w.flags & KERN_ACCESS_OP_MASK;
  const GlobalLaneMap m =
      globalLaneMap(config.globalRule, w.addrs, w.mask, w.size, op != KERN_ACCESS_LOAD);
  const int count = static_cast<int>(m.transactionCount);
  const double box = count > 0 ? std::min(64.0, double(kLanes * kCell) / count) : kCell;
  const int height = kBankY + kBox + 30;
  std::string out = open("lanemap global", height, "data-transactions=\"" + u(count) + "\"");
  out += laneRow(w.mask, "global");
  out += text(4, kBankY + 13, "moves", "label");
  for (int l = 0; l < kLanes; ++l) {
    if (!((w.mask >> l) & 1))
      continue;
    out += line(laneX(l) + kCell / 2.0, kLaneY + kBox, kLeft + (m.transaction[l] + 0.5) * box,
                kBankY, "wire s" + u(m.transaction[l] % 8));
  }
  uint64_t used = 0, moved = 0;
  for (int t = 0; t < count; ++t) {
    // The transaction's bytes that some active lane reads or writes.
    const uint64_t start = m.transactionStart[t], end = start + m.transactionBytes[t];
    std::vector<bool> touched(m.transactionBytes[t], false);
    for (int l = 0; l < kLanes; ++l)
      if ((w.mask >> l) & 1)
        for (uint64_t a = std::max(start, w.addrs[l]); a < std::min(end, w.addrs[l] + w.size); ++a)
          touched[a - start] = true;
    const uint64_t usedHere =
        static_cast<uint64_t>(std::count(touched.begin(), touched.end(), true));
    used += usedHere;
    moved += m.transactionBytes[t];
    const double x = kLeft + t * box + 1, width = box - 2;
    out += rect(x, kBankY, width, kBox, "transaction",
                "transaction " + u(t + 1) + ": " + u(m.transactionBytes[t]) + " B, " + u(usedHere) +
                    " B used");
    out += rect(x, kBankY + kBox - 5, width * double(usedHere) / m.transactionBytes[t], 5, "used");
    if (box >= 16)
      out += text(x + width / 2, kBankY + 12, u(t + 1), "num");
  }
  out += text(kLeft, kBankY + kBox + 20,
              u(count) + (count == 1 ? " transaction, " : " transactions, ") + u(used) +
                  " B used of " + u(moved) + " B moved",
              "caption");
  return out + "</svg>";
}

} // namespace

std::string htmlEscape(const std::string &s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&#39;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string laneMapSvg(const DeviceProfile &dev, const LaneCapture &warp) {
  return (warp.flags & KERN_ACCESS_SPACE_MASK) == KERN_ACCESS_SHARED ? sharedSvg(dev, warp)
                                                                     : globalSvg(dev, warp);
}

std::string branchMapSvg(const AccessSample &s) {
  // A row per time the warp split here (a loop's iterations), the first one on top.
  const uint32_t rows = std::max<uint32_t>(1, std::min(s.splits, kBranchSplitsKept));
  const int rowHeight = kBox + 6;
  std::string out = open("branchmap", kLaneY + rows * rowHeight + 22,
                         "data-taken=\"" + u(std::popcount(s.taken & s.mask)) +
                             "\" data-splits=\"" + u(s.splits) + "\"");
  for (uint32_t r = 0; r < rows; ++r) {
    const uint32_t mask = s.splits ? s.splitMask[r] : s.mask;
    const uint32_t taken = s.splits ? s.splitTaken[r] : s.taken;
    const double y = kLaneY + r * rowHeight;
    out +=
        "<g class=\"split\">" + text(4, y + 13, rows == 1 ? "lane" : "split " + u(r + 1), "label");
    for (int l = 0; l < kLanes; ++l) {
      const bool on = (mask >> l) & 1, held = (taken >> l) & 1;
      out += rect(laneX(l) + 1, y, kCell - 2, kBox,
                  !on    ? "lane off"
                  : held ? "lane taken"
                         : "lane nottaken",
                  "lane " + u(l) +
                      (!on    ? ": inactive"
                       : held ? ": condition true"
                              : ": false"));
      out += text(laneX(l) + kCell / 2.0, y + 13, u(l), "num");
    }
    out += "</g>";
  }
  std::string caption = "green: the condition held; orange: it did not";
  if (s.splits > 1)
    caption +=
        "; the warp split here " + u(s.splits) + " times" +
        (s.splits > kBranchSplitsKept ? " (the first " + u(kBranchSplitsKept) + " drawn)" : "");
  out += text(kLeft, kLaneY + rows * rowHeight + 14, caption, "caption");
  return out + "</svg>";
}

} // namespace kern::runtime
