//! Min-cost max-flow with successive shortest paths (SPFA), for the min-cost-flow strategy.

use std::collections::VecDeque;

struct Edge {
    to: usize,
    capacity: i64,
    cost: i64,
}

/// A flow network; edges are stored in pairs (forward, residual).
pub struct Graph {
    edges: Vec<Edge>,
    adjacency: Vec<Vec<usize>>,
}

impl Graph {
    pub fn new(nodes: usize) -> Self {
        Graph { edges: Vec::new(), adjacency: vec![Vec::new(); nodes] }
    }

    /// Adds an edge and returns its id.
    pub fn add_edge(&mut self, from: usize, to: usize, capacity: i64, cost: i64) -> usize {
        let id = self.edges.len();
        self.edges.push(Edge { to, capacity, cost });
        self.adjacency[from].push(id);
        self.edges.push(Edge { to: from, capacity: 0, cost: -cost });
        self.adjacency[to].push(id + 1);
        id
    }

    /// Flow on edge `id` after solving.
    pub fn flow(&self, id: usize) -> i64 {
        self.edges[id + 1].capacity
    }

    /// Pushes the maximum flow from `source` to `sink` at minimum cost; returns (flow, cost).
    pub fn min_cost_max_flow(&mut self, source: usize, sink: usize) -> (i64, i64) {
        let n = self.adjacency.len();
        let (mut total_flow, mut total_cost) = (0, 0);
        loop {
            let mut distance = vec![i64::MAX; n];
            let mut via: Vec<Option<usize>> = vec![None; n];
            let mut queued = vec![false; n];
            let mut queue = VecDeque::from([source]);
            distance[source] = 0;
            while let Some(node) = queue.pop_front() {
                queued[node] = false;
                for &id in &self.adjacency[node] {
                    let edge = &self.edges[id];
                    if edge.capacity > 0 && distance[node] + edge.cost < distance[edge.to] {
                        distance[edge.to] = distance[node] + edge.cost;
                        via[edge.to] = Some(id);
                        if !queued[edge.to] {
                            queued[edge.to] = true;
                            queue.push_back(edge.to);
                        }
                    }
                }
            }
            if distance[sink] == i64::MAX {
                return (total_flow, total_cost);
            }
            let mut push = i64::MAX;
            let mut node = sink;
            while let Some(id) = via[node] {
                push = push.min(self.edges[id].capacity);
                node = self.edges[id ^ 1].to;
            }
            let mut node = sink;
            while let Some(id) = via[node] {
                self.edges[id].capacity -= push;
                self.edges[id ^ 1].capacity += push;
                node = self.edges[id ^ 1].to;
            }
            total_flow += push;
            total_cost += push * distance[sink];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Graph;

    #[test]
    fn finds_the_cheaper_of_two_paths() {
        let mut g = Graph::new(4);
        let cheap = g.add_edge(0, 1, 1, 1);
        g.add_edge(1, 3, 1, 1);
        let dear = g.add_edge(0, 2, 2, 5);
        g.add_edge(2, 3, 2, 5);
        assert_eq!(g.min_cost_max_flow(0, 3), (3, 2 + 20));
        assert_eq!((g.flow(cheap), g.flow(dear)), (1, 2));
    }
}
