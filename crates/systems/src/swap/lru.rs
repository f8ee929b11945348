//! An exact LRU list of resident pages: an intrusive doubly linked list over dense
//! page ids, O(1) insert, touch and removal, deterministic.

use super::{PageId, NONE};

#[derive(Debug, Clone)]
pub struct Lru {
    prev: Vec<u32>,
    next: Vec<u32>,
    in_list: Vec<bool>,
    /// Most recently used.
    head: u32,
    /// Least recently used.
    tail: u32,
    len: u32,
}

impl Lru {
    pub fn new(pages: u32) -> Self {
        Self {
            prev: vec![NONE; pages as usize],
            next: vec![NONE; pages as usize],
            in_list: vec![false; pages as usize],
            head: NONE,
            tail: NONE,
            len: 0,
        }
    }

    pub fn len(&self) -> u32 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn contains(&self, p: PageId) -> bool {
        self.in_list[p as usize]
    }

    /// Inserts `p` as most recently used (moves it there if present).
    pub fn touch(&mut self, p: PageId) {
        if self.in_list[p as usize] {
            if self.head == p {
                return;
            }
            self.remove(p);
        }
        let i = p as usize;
        self.prev[i] = NONE;
        self.next[i] = self.head;
        if self.head != NONE {
            self.prev[self.head as usize] = p;
        } else {
            self.tail = p;
        }
        self.head = p;
        self.in_list[i] = true;
        self.len += 1;
    }

    pub fn remove(&mut self, p: PageId) {
        let i = p as usize;
        if !self.in_list[i] {
            return;
        }
        let (pr, nx) = (self.prev[i], self.next[i]);
        if pr != NONE {
            self.next[pr as usize] = nx;
        } else {
            self.head = nx;
        }
        if nx != NONE {
            self.prev[nx as usize] = pr;
        } else {
            self.tail = pr;
        }
        self.in_list[i] = false;
        self.len -= 1;
    }

    /// Removes and returns the least recently used page.
    pub fn pop_lru(&mut self) -> Option<PageId> {
        let t = self.tail;
        if t == NONE {
            return None;
        }
        self.remove(t);
        Some(t)
    }
}
