//! Zipf-distributed words for the text-heavy table (the Delta reader study's text projection
//! reads six long text columns): a fixed vocabulary of pronounceable words, drawn with
//! probability ∝ 1 / rank^1.07, as word frequencies in natural text roughly are.

use super::Rng;
use std::sync::OnceLock;

/// Words in the vocabulary.
const VOCABULARY: usize = 8_192;
/// The Zipf exponent.
const EXPONENT: f64 = 1.07;
const ONSETS: [&str; 16] = [
    "b", "c", "d", "f", "g", "h", "l", "m", "n", "p", "r", "s", "t", "v", "st", "tr",
];
const VOWELS: [&str; 8] = ["a", "e", "i", "o", "u", "ai", "ea", "ou"];

struct Zipf {
    words: Vec<String>,
    /// Cumulative probabilities, ascending to 1.
    cumulative: Vec<f64>,
}

fn zipf() -> &'static Zipf {
    static TABLE: OnceLock<Zipf> = OnceLock::new();
    TABLE.get_or_init(|| {
        // Word k spells k in base-128 syllables (onset × vowel): short words are the common ones.
        let words = (0..VOCABULARY)
            .map(|k| {
                let mut word = String::new();
                let mut rest = k;
                loop {
                    let syllable = rest % 128;
                    word.push_str(ONSETS[syllable % 16]);
                    word.push_str(VOWELS[syllable / 16]);
                    rest /= 128;
                    if rest == 0 {
                        break;
                    }
                }
                word
            })
            .collect();
        let mut total = 0.0;
        let mut cumulative: Vec<f64> = (1..=VOCABULARY)
            .map(|rank| {
                total += 1.0 / (rank as f64).powf(EXPONENT);
                total
            })
            .collect();
        for c in cumulative.iter_mut() {
            *c /= total;
        }
        Zipf { words, cumulative }
    })
}

/// A line of Zipf words of about `bytes` bytes (between half and one and a half times).
pub fn line(rng: &mut Rng, bytes: usize) -> String {
    let table = zipf();
    let target = bytes / 2 + rng.below(bytes as u64 + 1) as usize;
    let mut out = String::with_capacity(target + 16);
    while out.len() < target {
        if !out.is_empty() {
            out.push(' ');
        }
        let u = rng.unit_f64();
        let rank = table
            .cumulative
            .partition_point(|&c| c < u)
            .min(VOCABULARY - 1);
        out.push_str(&table.words[rank]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_about_the_asked_length_and_zipf_skewed() {
        let mut rng = Rng::new(7, 1);
        let lines: Vec<String> = (0..2_000).map(|_| line(&mut rng, 170)).collect();
        let mean = lines.iter().map(String::len).sum::<usize>() as f64 / lines.len() as f64;
        assert!((150.0..200.0).contains(&mean), "mean length {mean}");
        let words: Vec<&str> = lines.iter().flat_map(|l| l.split(' ')).collect();
        let top = words.iter().filter(|w| **w == zipf().words[0]).count();
        let rare = words.iter().filter(|w| **w == zipf().words[999]).count();
        // Rank 1 is about 1000^1.07 ≈ 1,600 times as frequent as rank 1,000.
        assert!(top > 50 * rare.max(1), "top {top}, rank 1000 {rare}");
        assert_eq!(line(&mut Rng::new(7, 1), 170), lines[0]);
    }
}
