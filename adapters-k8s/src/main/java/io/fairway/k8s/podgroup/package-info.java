/**
 * Plain pod groups: gated pods labelled with a group name and total count, queued and admitted as one gang
 * ({@link io.fairway.k8s.podgroup.PodGroupController}).
 */
package io.fairway.k8s.podgroup;
