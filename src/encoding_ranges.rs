//! An encoding's sequence ranges (HF's `sequence_ranges`, a map from sequence
//! id to a token range): ids 0 and 1 (a text and its pair, all the pipeline
//! makes) kept inline, any other id (only an unpickled state can hold one) in a
//! map. A `BTreeMap` alone allocated a node for every encoding.

use std::collections::BTreeMap;
use std::ops::Range;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SequenceRanges {
    inline: [Option<Range<usize>>; 2],
    rest: BTreeMap<usize, Range<usize>>,
}

impl SequenceRanges {
    pub fn insert(&mut self, id: usize, r: Range<usize>) {
        match self.inline.get_mut(id) {
            Some(slot) => *slot = Some(r),
            None => {
                self.rest.insert(id, r);
            }
        }
    }

    pub fn get(&self, id: &usize) -> Option<&Range<usize>> {
        match self.inline.get(*id) {
            Some(slot) => slot.as_ref(),
            None => self.rest.get(id),
        }
    }

    /// By increasing id, as the map's.
    pub fn iter(&self) -> impl Iterator<Item = (&usize, &Range<usize>)> {
        const IDS: [usize; 2] = [0, 1];
        IDS.iter().zip(&self.inline).filter_map(|(k, r)| Some((k, r.as_ref()?))).chain(self.rest.iter())
    }

    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut Range<usize>> {
        self.inline.iter_mut().flatten().chain(self.rest.values_mut())
    }

    pub fn clear(&mut self) {
        self.inline = [None, None];
        self.rest.clear();
    }

    pub fn len(&self) -> usize {
        self.inline.iter().flatten().count() + self.rest.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

type Entry = (usize, Range<usize>);
type Slot = (usize, Option<Range<usize>>);
type InlineIter = std::iter::FilterMap<std::iter::Zip<Range<usize>, std::array::IntoIter<Option<Range<usize>>, 2>>, fn(Slot) -> Option<Entry>>;

impl IntoIterator for SequenceRanges {
    type Item = Entry;
    type IntoIter = std::iter::Chain<InlineIter, std::collections::btree_map::IntoIter<usize, Range<usize>>>;

    fn into_iter(self) -> Self::IntoIter {
        let some: fn(Slot) -> Option<Entry> = |(k, r)| Some((k, r?));
        (0..2).zip(self.inline).filter_map(some).chain(self.rest)
    }
}

impl FromIterator<(usize, Range<usize>)> for SequenceRanges {
    fn from_iter<I: IntoIterator<Item = (usize, Range<usize>)>>(iter: I) -> Self {
        let mut out = SequenceRanges::default();
        iter.into_iter().for_each(|(k, r)| out.insert(k, r));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn behaves_as_the_map() {
        let ops = [(3, 1..2), (1, 0..4), (0, 2..3), (1, 5..6), (7, 0..0), (0, 1..1)];
        let (mut ours, mut map) = (SequenceRanges::default(), BTreeMap::new());
        for (k, r) in ops {
            ours.insert(k, r.clone());
            map.insert(k, r);
            assert_eq!(ours.iter().map(|(&k, r)| (k, r.clone())).collect::<Vec<_>>(), map.iter().map(|(&k, r)| (k, r.clone())).collect::<Vec<_>>());
            assert_eq!((ours.len(), ours.get(&1), ours.get(&3)), (map.len(), map.get(&1), map.get(&3)));
        }
        ours.values_mut().for_each(|r| r.end += 1);
        map.values_mut().for_each(|r| r.end += 1);
        assert_eq!(ours.clone().into_iter().collect::<Vec<_>>(), map.clone().into_iter().collect::<Vec<_>>());
        ours.clear();
        assert!(ours.is_empty());
    }
}
