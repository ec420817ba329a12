use super::add_traffic;
use crate::results::{CellKey, SampleRecord, SampleStatus};
use formatbench_protocol::ObjectTraffic;

fn sample() -> SampleRecord {
    let cell = CellKey {
        storage: "s3".into(),
        network: "local".into(),
        ..CellKey::example("r-data.table")
    };
    let mut s = SampleRecord::bare("run", cell, Some(0), SampleStatus::Ok, None);
    s.wall_s = Some(0.03);
    s
}

#[test]
fn an_ok_answer_the_server_served_nothing_is_failed_with_the_reason() {
    let mut s = sample();
    add_traffic(&mut s, Some(Ok(Some(ObjectTraffic::default()))));
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
    add_traffic(&mut s, Some(Ok(Some(traffic))));
    assert_eq!(s.status, SampleStatus::Ok);
    let kept = s.object_traffic.as_ref().unwrap();
    assert_eq!((kept.get_range, kept.bytes_sent), (2, 500));

    // A user's own store: no server count at all.
    let mut own = sample();
    add_traffic(&mut own, Some(Ok(None)));
    assert_eq!(own.status, SampleStatus::Ok);
    assert!(own.object_traffic.is_none());
}
