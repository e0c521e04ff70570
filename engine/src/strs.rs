//! [`Strs`]: a column of byte strings stored back to back in one buffer.
//!
//! A string column of a block holds up to 2^19 values; one heap allocation
//! per value made decoding a dictionary, gathering rows and evaluating string
//! functions spend most of their time in the allocator and in copies. Here a
//! column is two allocations whatever its length: the bytes, and where each
//! value ends. Values are read as `&[u8]` (`strs[i]`, [`Strs::get`],
//! [`Strs::iter`]); a column is built by pushing slices or collecting
//! anything that is `AsRef<[u8]>`.

use std::fmt;
use std::ops::Index;

/// Byte strings stored back to back: value `i` is
/// `bytes[ends[i - 1]..ends[i]]` (from 0 for the first).
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Strs {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl Strs {
    /// No strings.
    pub fn new() -> Strs {
        Strs::default()
    }

    /// No strings, with room for `n` of them (their bytes grow as needed).
    pub fn with_capacity(n: usize) -> Strs {
        Strs {
            bytes: Vec::new(),
            ends: Vec::with_capacity(n),
        }
    }

    /// No strings, with room for `n` of them holding `bytes` bytes in all.
    pub fn with_capacity_bytes(n: usize, bytes: usize) -> Strs {
        Strs {
            bytes: Vec::with_capacity(bytes),
            ends: Vec::with_capacity(n),
        }
    }

    /// Strings from their bytes back to back and where each ends; `ends`
    /// must ascend and stay within `bytes` (checked in debug builds).
    pub fn from_parts(bytes: Vec<u8>, ends: Vec<usize>) -> Strs {
        debug_assert!(
            ends.windows(2).all(|w| w[0] <= w[1]) && ends.last().is_none_or(|&e| e <= bytes.len()),
            "string ends out of order"
        );
        Strs { bytes, ends }
    }

    /// `n` empty strings.
    pub fn empties(n: usize) -> Strs {
        Strs {
            bytes: Vec::new(),
            ends: vec![0; n],
        }
    }

    /// Number of strings.
    #[inline]
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are no strings.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Room for `n` more strings holding `bytes` more bytes.
    pub fn reserve(&mut self, n: usize, bytes: usize) {
        self.ends.reserve_exact(n);
        self.bytes.reserve_exact(bytes);
    }

    /// The bytes of all strings together.
    pub fn total_bytes(&self) -> usize {
        self.bytes.len()
    }

    /// Heap bytes held (capacity of both buffers).
    pub fn heap_bytes(&self) -> usize {
        self.bytes.capacity() + self.ends.capacity() * std::mem::size_of::<usize>()
    }

    #[inline]
    fn start(&self, i: usize) -> usize {
        if i == 0 {
            0
        } else {
            self.ends[i - 1]
        }
    }

    /// String `i`, if there is one.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&[u8]> {
        let end = *self.ends.get(i)?;
        Some(&self.bytes[self.start(i)..end])
    }

    /// Appends a string.
    #[inline]
    pub fn push(&mut self, s: &[u8]) {
        self.bytes.extend_from_slice(s);
        self.ends.push(self.bytes.len());
    }

    /// Appends an empty string.
    #[inline]
    pub fn push_empty(&mut self) {
        self.ends.push(self.bytes.len());
    }

    /// Appends every string of `other`.
    pub fn extend_from(&mut self, other: &Strs) {
        let base = self.bytes.len();
        self.bytes.extend_from_slice(&other.bytes);
        self.ends.extend(other.ends.iter().map(|&e| base + e));
    }

    /// Keeps the first `n` strings.
    pub fn truncate(&mut self, n: usize) {
        if n < self.len() {
            self.bytes.truncate(self.start(n));
            self.ends.truncate(n);
        }
    }

    /// The strings at `idx`, in that order; an index past the end gives an
    /// empty string.
    pub fn gather(&self, idx: &[u32]) -> Strs {
        let bytes: usize = idx
            .iter()
            .map(|&i| self.get(i as usize).map_or(0, <[u8]>::len))
            .sum();
        let mut out = Strs::with_capacity_bytes(idx.len(), bytes);
        for &i in idx {
            match self.get(i as usize) {
                Some(s) => out.push(s),
                None => out.push_empty(),
            }
        }
        out
    }

    /// The strings, in order.
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            strs: self,
            front: 0,
            back: self.len(),
        }
    }

    /// String `i` replaced by `s` (rebuilding the strings after it).
    pub fn set(&mut self, i: usize, s: &[u8]) {
        let mut rest = Strs::with_capacity(self.len() - i);
        for x in self.iter().skip(i + 1) {
            rest.push(x);
        }
        self.truncate(i);
        self.push(s);
        self.extend_from(&rest);
    }
}

impl Index<usize> for Strs {
    type Output = [u8];

    #[inline]
    fn index(&self, i: usize) -> &[u8] {
        &self.bytes[self.start(i)..self.ends[i]]
    }
}

impl fmt::Debug for Strs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.iter().map(String::from_utf8_lossy))
            .finish()
    }
}

/// The strings of a [`Strs`], in order.
#[derive(Debug, Clone)]
pub struct Iter<'a> {
    strs: &'a Strs,
    front: usize,
    back: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a [u8];

    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        if self.front == self.back {
            return None;
        }
        let s = &self.strs[self.front];
        self.front += 1;
        Some(s)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.back - self.front;
        (n, Some(n))
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        if self.front == self.back {
            return None;
        }
        self.back -= 1;
        Some(&self.strs[self.back])
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a Strs {
    type Item = &'a [u8];
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl<S: AsRef<[u8]>> FromIterator<S> for Strs {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Strs {
        let iter = iter.into_iter();
        let mut out = Strs::with_capacity(iter.size_hint().0);
        for s in iter {
            out.push(s.as_ref());
        }
        out
    }
}

impl<S: AsRef<[u8]>> Extend<S> for Strs {
    fn extend<I: IntoIterator<Item = S>>(&mut self, iter: I) {
        for s in iter {
            self.push(s.as_ref());
        }
    }
}

impl From<Vec<Vec<u8>>> for Strs {
    fn from(v: Vec<Vec<u8>>) -> Strs {
        v.iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_get_gather_set() {
        let mut s: Strs = ["ab", "", "cde"].iter().collect();
        assert_eq!(s.len(), 3);
        assert_eq!(&s[0], b"ab");
        assert_eq!(&s[1], b"");
        assert_eq!(s.get(2), Some(&b"cde"[..]));
        assert_eq!(s.get(3), None);
        let g = s.gather(&[2, 2, 9, 0]);
        let v: Vec<&[u8]> = g.iter().collect();
        assert_eq!(v, vec![&b"cde"[..], b"cde", b"", b"ab"]);
        s.set(1, b"xyz");
        assert_eq!(
            s.iter().rev().collect::<Vec<_>>(),
            vec![&b"cde"[..], b"xyz", b"ab"]
        );
        let mut t = Strs::empties(2);
        t.extend_from(&s);
        assert_eq!(t.len(), 5);
        assert_eq!(&t[4], b"cde");
        t.truncate(3);
        assert_eq!(t.total_bytes(), 2);
        assert_eq!(t, ["", "", "ab"].iter().collect::<Strs>());
    }
}
