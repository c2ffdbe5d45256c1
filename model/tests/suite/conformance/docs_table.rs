//! `docs/conformance.md`'s count table against this suite: per Kafka test class, the model
//! tests it names are the `#[test]` functions of its module, and its verdicts add up to the
//! cases it counts; the last row is the sum of the others.

/// The doc and each module's source, read at compile time so a change to either rebuilds
/// this test.
const DOC: &str = include_str!("../../../../docs/conformance.md");
const MODULES: &[(&str, &str)] = &[
    (
        "transaction_coordinator",
        include_str!("transaction_coordinator.rs"),
    ),
    (
        "transaction_metadata",
        include_str!("transaction_metadata.rs"),
    ),
    (
        "transaction_state_manager",
        include_str!("transaction_state_manager.rs"),
    ),
    ("marker_completion", include_str!("marker_completion.rs")),
    (
        "transaction_manager",
        include_str!("transaction_manager.rs"),
    ),
    (
        "producer_state_manager",
        include_str!("producer_state_manager.rs"),
    ),
    ("share_partition", include_str!("share_partition.rs")),
    (
        "share_partition_manager",
        include_str!("share_partition_manager.rs"),
    ),
    ("share_coordinator", include_str!("share_coordinator.rs")),
    (
        "persister_state_batch_combiner",
        include_str!("persister_state_batch_combiner.rs"),
    ),
    (
        "share_partition_txn_state",
        include_str!("share_partition_txn_state.rs"),
    ),
];

/// One row of the count table: the module and its numbers (cases, model tests, agree,
/// agree (held), disagree, out of scope; `-` is 0).
struct Row {
    module: String,
    numbers: [u32; 6],
}

/// The rows of the table under `## Counts`, the `all` row last.
fn count_rows() -> Vec<Row> {
    let section = DOC
        .split("\n## Counts")
        .nth(1)
        .expect("docs/conformance.md has a Counts section");
    section
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            assert_eq!(cells.len(), 8, "eight columns: {line}");
            let number = |cell: &str| -> u32 {
                let first = cell.split_whitespace().next().unwrap_or("-");
                if first == "-" {
                    0
                } else {
                    first
                        .parse()
                        .unwrap_or_else(|_| panic!("a number: {cell} in {line}"))
                }
            };
            let mut numbers = [0; 6];
            for (i, n) in numbers.iter_mut().enumerate() {
                *n = number(cells[i + 2]);
            }
            Row {
                module: cells[1].trim_matches('`').to_string(),
                numbers,
            }
        })
        .collect()
}

fn tests_in(source: &str) -> u32 {
    source
        .lines()
        .filter(|l| l.trim() == "#[test]")
        .count()
        .try_into()
        .expect("a count")
}

#[test]
fn the_count_table_matches_the_suite() {
    let rows = count_rows();
    let (all, classes) = rows.split_last().expect("rows");
    assert_eq!(all.module, "all", "the last row is the total");
    assert_eq!(classes.len(), MODULES.len(), "one row per module");
    let mut total = [0; 6];
    for row in classes {
        let (_, source) = MODULES
            .iter()
            .find(|(m, _)| *m == row.module)
            .unwrap_or_else(|| panic!("no module {}", row.module));
        assert_eq!(
            row.numbers[1],
            tests_in(source),
            "{}: model tests in the table and #[test] functions in the module",
            row.module
        );
        assert_eq!(
            row.numbers[0],
            row.numbers[2..].iter().sum::<u32>(),
            "{}: the verdicts add up to the cases",
            row.module
        );
        for (t, n) in total.iter_mut().zip(row.numbers) {
            *t += n;
        }
    }
    assert_eq!(all.numbers, total, "the all row is the sum");
}
