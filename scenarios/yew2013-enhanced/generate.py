"""Writes the scenarios of the enhanced-Vegas study of Yew's thesis (shared/seeds/001_f23e27f93d6cd1ba.txt):
the handover topology of scenarios/yew2011-handover with 1, 2, 4 or 6 TCP Vegas connections from
the CN to the mobile node, RED queues that mark ECN on the wired path, and every enhancement
present but switched off (pacing.enabled, vegas.progressive, vegas.congestion_measure), so that
each ablation is a grid point of experiments/yew2013-enhanced-vegas.

Run from anywhere: python scenarios/yew2013-enhanced/generate.py
"""

from pathlib import Path

HERE = Path(__file__).resolve().parent
BASE = HERE.parent / "yew2011-handover" / "vegas.toml"

RED = '\nqueue = "red"\n[links.red]\nsetbit = true\n'


def scenario(n: int) -> str:
    text = BASE.read_text()
    head, flows = text.split("[[flows]]", 1)
    head = head.replace('name = "yew2011-handover-vegas"', f'name = "thesis-{n}"')
    head = head.replace("# Yew, Ong and Ahmad (000_3bee746e20d1e1b9.txt, §V, Fig. 3, Table I): TCP Vegas to a mobile node",
                        f"# Written by scenarios/yew2013-enhanced/generate.py: {n} TCP Vegas connection(s) to a mobile node,\n"
                        "# the enhanced-Vegas study of Yew's thesis on the topology of 000_3bee746e20d1e1b9.txt. A mobile node")
    # ECN marking on the wired path the MN's traffic shares (the congestion measure reads it)
    for link in ('from = "n1"\nto = "map"\nbandwidth = "2Mb"\ndelay = "50ms"\n',
                 'from = "map"\nto = "ar1"\nbandwidth = "1Mb"\ndelay = "2ms"\n',
                 'from = "map"\nto = "ar2"\nbandwidth = "1Mb"\ndelay = "2ms"\n'):
        head = head.replace(link, link + RED)
    head = head.replace("[positions]", '[tcp]\necn = true\n\n[pacing]\nenabled = false\nrtt = "latest"\n\n'
                        '[vegas]\nprogressive = "off"\ncongestion_measure = false\n\n[positions]', 1)
    for i in range(n):
        head += f'[[flows]]\nname = "ftp{i + 1}"\nfrom = "cn"\nto = "mn"\nprotocol = "vegas"\nstart = "{0.1 * i:.1f}s"\n\n'
    return head.rstrip() + "\n"


def main() -> None:
    for old in HERE.glob("*.toml"):
        old.unlink()
    for n in (1, 2, 4, 6):
        (HERE / f"thesis-{n}.toml").write_text(scenario(n))
    print(f"wrote 4 scenarios to {HERE}")


if __name__ == "__main__":
    main()
