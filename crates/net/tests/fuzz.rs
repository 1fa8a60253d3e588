//! Fuzzing the scenario parser and the engine from Rust: mutated copies of every shipped
//! scenario file either parse to a scenario, which is estimated (tcplab_net::budget) and then
//! runs its first 0.2 s with its invariants checked, or are refused with an error naming a
//! field. Nothing panics.
//! (The Python tests fuzz generated scenarios and sweep files with hypothesis.)

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use tcplab_des::Time;
use tcplab_net::budget::Estimate;
use tcplab_net::{RunOptions, Scenario, Simulation};

/// Mutations per shipped file.
const PER_FILE: usize = 300;

/// xorshift64*: the test's own reproducible randomness.
struct Draw(u64);

impl Draw {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545F4914F6CDD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One to four edits: a byte replaced by one TOML cares about, deleted, or doubled, or a line
/// dropped.
fn mutate(text: &str, d: &mut Draw) -> String {
    const BYTES: &[u8] = b"0123456789-+.eE\"'[]{}=,#\n msMbkBG_x";
    let mut bytes = text.as_bytes().to_vec();
    for _ in 0..1 + d.below(4) {
        if bytes.is_empty() {
            break;
        }
        let i = d.below(bytes.len());
        match d.below(4) {
            0 => bytes[i] = BYTES[d.below(BYTES.len())],
            1 => {
                bytes.remove(i);
            }
            2 => bytes.insert(i, bytes[i]),
            _ => {
                let start = bytes[..i].iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
                let end = bytes[i..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |p| i + p);
                bytes.drain(start..end);
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn shipped() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut texts = Vec::new();
    for dir in std::fs::read_dir(root).unwrap() {
        let dir = dir.unwrap().path();
        if dir.is_dir() {
            for f in std::fs::read_dir(&dir).unwrap() {
                let f = f.unwrap().path();
                if f.extension().is_some_and(|e| e == "toml") {
                    texts.push(std::fs::read_to_string(f).unwrap());
                }
            }
        }
    }
    texts.sort();
    texts
}

#[test]
fn mutated_scenarios_parse_and_run_or_are_refused_without_a_panic() {
    let mut d = Draw(0x9E3779B97F4A7C15);
    let (mut ran, mut refused) = (0, 0);
    for text in shipped() {
        for _ in 0..PER_FILE {
            let input = mutate(&text, &mut d);
            let outcome = catch_unwind(AssertUnwindSafe(|| match Scenario::from_toml(&input) {
                Err(e) => {
                    assert!(!e.to_string().is_empty());
                    None
                }
                Ok(scenario) => {
                    let until = Time::from_millis(200).min(scenario.duration);
                    let opts = RunOptions { until: Some(until), check: true, ..Default::default() };
                    // the estimate of the whole run, which the limits read before any run
                    let whole = Estimate::of(&scenario, &RunOptions::default());
                    assert!(whole.events >= 0.0 && whole.memory_bytes() >= 0.0, "{whole:?}");
                    // a scenario that asks for file traces has no folder here: an I/O error, not a panic
                    let result = Simulation::new(scenario, &opts).and_then(|s| s.finish()).ok()?;
                    Some(result.check.expect("checked").violations)
                }
            }));
            match outcome {
                Ok(Some(0)) => ran += 1,
                Ok(None) => refused += 1,
                Ok(Some(n)) => panic!("{n} broken invariants in:\n{input}"),
                Err(_) => panic!("panicked on:\n{input}"),
            }
        }
    }
    assert!(ran > 100 && refused > 100, "{ran} ran, {refused} refused: the mutations should give both");
}
