use super::{add_traffic, digest_check};
use crate::results::{CellKey, SampleRecord, SampleStatus};
use crate::run::storage::SampleTraffic;
use crate::stats::CallMode;
use crate::verify::digest::{file_digest, Rows};
use formatbench_protocol::{ObjectTraffic, SplitTraffic};

fn sample() -> SampleRecord {
    let cell = CellKey {
        storage: "s3".into(),
        network: "local".into(),
        row_group_rows: None,
        parquet_files: None,
        sort_by: None,
        executors: None,
        ..CellKey::example("r-data.table")
    };
    let mut s = SampleRecord::bare("run", cell, Some(0), SampleStatus::Ok, None);
    s.wall_s = Some(0.03);
    s
}

#[test]
fn an_ok_answer_the_server_served_nothing_is_failed_with_the_reason() {
    let mut s = sample();
    add_traffic(
        &mut s,
        Some(Ok(Some(SampleTraffic::Whole(ObjectTraffic::default())))),
    );
    assert_eq!(s.status, SampleStatus::Failed);
    assert_eq!(s.wall_s, None);
    let reason = s.reason.unwrap();
    assert!(reason.contains("r-data.table") && reason.contains("did not use object storage"));
}

#[test]
fn traffic_is_kept_per_call_and_a_store_that_counts_nothing_changes_nothing() {
    let mut s = sample();
    s.calls = Some(2);
    let traffic = ObjectTraffic {
        get_range: 4,
        bytes_sent: 1_000,
        ..ObjectTraffic::default()
    };
    add_traffic(&mut s, Some(Ok(Some(SampleTraffic::Whole(traffic)))));
    assert_eq!(s.status, SampleStatus::Ok);
    let kept = s.object_traffic.as_ref().unwrap();
    assert_eq!((kept.get_range, kept.bytes_sent), (2, 500));
    // Not split: neither call's own figure, and the ranked figure says it is a mean.
    assert!(s.first_call_object_traffic.is_none() && s.warm_call_object_traffic.is_none());
    assert!(!CallMode::Warm.traffic_of(&s).unwrap().1);

    // A user's own store: no server count at all.
    let mut own = sample();
    add_traffic(&mut own, Some(Ok(None)));
    assert_eq!(own.status, SampleStatus::Ok);
    assert!(own.object_traffic.is_none());
}

#[test]
fn a_split_count_gives_the_first_call_and_each_warm_call_their_own_traffic() {
    // Three calls: the first fetches the footer and two row groups (cold client, no cached
    // metadata); each warm call two row groups.
    let mut s = sample();
    s.calls = Some(3);
    let traffic = |head, get_range, bytes_sent| ObjectTraffic {
        head,
        get_range,
        bytes_sent,
        ..ObjectTraffic::default()
    };
    let split = SplitTraffic {
        first_call: traffic(1, 3, 1_100),
        later_calls: traffic(0, 4, 2_000),
        all: traffic(1, 7, 3_100),
    };
    add_traffic(
        &mut s,
        Some(Ok(Some(SampleTraffic::Split(Box::new(split))))),
    );
    let counts = |t: &ObjectTraffic| (t.head, t.get_range, t.bytes_sent);
    let (first, own) = CallMode::First.traffic_of(&s).unwrap();
    assert!(own);
    assert_eq!(counts(first), (1, 3, 1_100));
    let (warm, own) = CallMode::Warm.traffic_of(&s).unwrap();
    assert!(own);
    assert_eq!(counts(warm), (0, 2, 1_000));
    // The mean over all three calls stays, rounded up.
    assert_eq!(counts(s.object_traffic.as_ref().unwrap()), (1, 3, 1_034));
}

#[test]
fn a_one_call_sample_counts_its_only_call_as_the_first() {
    let mut s = sample();
    s.calls = Some(1);
    let traffic = ObjectTraffic {
        get: 1,
        bytes_sent: 10,
        ..ObjectTraffic::default()
    };
    add_traffic(
        &mut s,
        Some(Ok(Some(SampleTraffic::Whole(traffic.clone())))),
    );
    assert_eq!(CallMode::First.traffic_of(&s), Some((&traffic, true)));
    assert!(s.warm_call_object_traffic.is_none());
}

/// A one-column result file of `values`.
fn result_file(dir: &std::path::Path, name: &str, values: Vec<Option<i64>>) -> std::path::PathBuf {
    use arrow::array::{ArrayRef, Int64Array, RecordBatch};
    let column: ArrayRef = std::sync::Arc::new(Int64Array::from(values));
    let batch = RecordBatch::try_from_iter([("id", column)]).unwrap();
    let path = dir.join(name);
    formatbench_worker_kit::source::write_ipc(&path, &batch.schema(), &[batch]).unwrap();
    path
}

#[test]
fn a_sample_passes_only_with_a_result_file_that_digests_as_the_verified_one() {
    let dir = tempfile::tempdir().unwrap();
    let verified_file = result_file(dir.path(), "verified.arrow", vec![Some(1), None, Some(3)]);
    let verified = file_digest(&verified_file, Rows::Ordered).unwrap();
    let same = result_file(dir.path(), "same.arrow", vec![Some(1), None, Some(3)]);
    assert_eq!(
        digest_check(Some(&verified), Rows::Ordered, &same),
        Ok(verified.clone())
    );
    // The null read as a value, in a later sample.
    let wrong = result_file(dir.path(), "wrong.arrow", vec![Some(1), Some(0), Some(3)]);
    let why = digest_check(Some(&verified), Rows::Ordered, &wrong).unwrap_err();
    assert!(why.contains("differs from the verified"), "{why}");
    // No file, or no verified digest, is never a pass (the old None == None).
    let missing = dir.path().join("missing.arrow");
    let why = digest_check(Some(&verified), Rows::Ordered, &missing).unwrap_err();
    assert!(why.contains("no result file"), "{why}");
    assert!(digest_check(None, Rows::Ordered, &same).is_err());
}
