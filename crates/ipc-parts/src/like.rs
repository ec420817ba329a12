//! FeatherStore's like-patterns for column names: `%` matches any run of characters (also an
//! empty one), `?` exactly one, everything else itself; case-insensitive; anchored at both
//! ends (a leading or trailing `%` is what unanchors a side).

/// Whether `name` matches `pattern`.
pub fn matches(pattern: &str, name: &str) -> bool {
    let pattern: Vec<char> = pattern.to_lowercase().chars().collect();
    let name: Vec<char> = name.to_lowercase().chars().collect();
    // Greedy matching with backtracking to the last `%` (linear in practice, like glob).
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        match pattern.get(p) {
            Some('%') => {
                star = Some((p, n));
                p += 1;
            }
            Some(&c) if c == '?' || c == name[n] => {
                p += 1;
                n += 1;
            }
            _ => match star {
                Some((sp, sn)) => {
                    p = sp + 1;
                    n = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == '%')
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn follows_featherstore_rules() {
        assert!(matches("c1%", "c10"));
        assert!(matches("c1%", "C1"));
        assert!(!matches("c1%", "xc1"));
        assert!(matches("%1", "c11"));
        assert!(!matches("%1", "c12"));
        assert!(matches("c?", "c7"));
        assert!(!matches("c?", "c77"));
        assert!(matches("%a%b%", "xxaxxbxx"));
        assert!(!matches("%a%b%", "xxbxxaxx"));
        assert!(matches("%", ""));
        assert!(!matches("a", ""));
        assert!(matches("price", "PRICE"));
    }
}
